package dev.remora.it.jmx;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.RuntimeMXBean;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.InstanceNotFoundException;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanException;
import javax.management.MBeanServer;
import javax.management.MBeanServerConnection;
import javax.management.Notification;
import javax.management.NotificationListener;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXConnectorServer;
import javax.management.remote.JMXServiceURL;

/**
 * {@code JmxClient <port> session|auth}, {@code JmxClient <service URL> url} or {@code JmxClient - local}: a JMX client
 * of {@link JmxServer} over the JDK's RMI connector (by its registry, or by a URL that holds the stub), or of a
 * connector server this JVM starts itself through a custom RMIServerSocketFactory ({@code local}, as the JDK's own JMX
 * tests do), printing one line per step, the same lines whatever carries the calls.
 * <ul>
 * <li>session, url, local: platform MXBeans through proxies (open types: {@code CompositeData}, arrays of it), every
 * readable attribute of every {@code java.lang} MBean, an application MBean's attribute, operation, notifications (delivered by
 * the connector's long-polling {@code fetchNotifications} call) and exceptions, then 2000 calls in a row.</li>
 * <li>auth: against a server started with a password file: the right credentials, a wrong password, and two
 * credential objects of types the connector's deserialization filter refuses ({@code HashMap}, {@code ArrayList}).</li>
 * </ul>
 */
public final class JmxClient {
    private static final String COUNTER = "dev.remora.it.jmx:type=Counter";

    public static void main(String[] args) throws Exception {
        JMXConnectorServer local = null;
        JMXServiceURL url;
        if (args[1].equals("url")) {
            url = new JMXServiceURL(args[0]);
        } else if (args[1].equals("local")) {
            MBeanServer mbs = ManagementFactory.getPlatformMBeanServer(); // the session reads the platform MXBeans
            mbs.registerMBean(new Counter(), new ObjectName(COUNTER));
            local = JmxServer.startWithFactory(mbs);
            url = local.getAddress();
        } else {
            url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + args[0] + "/jmxrmi");
        }
        if (args[1].equals("auth")) {
            auth(url);
        } else {
            try (JMXConnector c = JMXConnectorFactory.connect(url)) {
                session(c.getMBeanServerConnection());
            }
            System.out.println("closed");
        }
        if (local != null) {
            local.stop();
        }
    }

    private static void session(MBeanServerConnection m) throws Exception {
        System.out.println("mbeans > 0: " + (m.getMBeanCount() > 0));
        RuntimeMXBean rt = ManagementFactory.newPlatformMXBeanProxy(m, ManagementFactory.RUNTIME_MXBEAN_NAME,
                RuntimeMXBean.class);
        System.out.println("runtime: vendor known " + !rt.getVmVendor().isEmpty() + ", uptime > 0 "
                + (rt.getUptime() > 0));
        MemoryMXBean mem = ManagementFactory.newPlatformMXBeanProxy(m, ManagementFactory.MEMORY_MXBEAN_NAME,
                MemoryMXBean.class);
        System.out.println("heap used > 0: " + (mem.getHeapMemoryUsage().getUsed() > 0));
        ThreadMXBean threads = ManagementFactory.newPlatformMXBeanProxy(m, ManagementFactory.THREAD_MXBEAN_NAME,
                ThreadMXBean.class);
        ThreadInfo[] dump = threads.dumpAllThreads(true, true);
        System.out.println("thread dump has main: "
                + Arrays.stream(dump).anyMatch(t -> t.getThreadName().equals("main")));

        int asked = 0;
        TreeSet<String> unanswered = new TreeSet<>(); // those the platform does not support here (the same plainly)
        for (ObjectName n : m.queryNames(new ObjectName("java.lang:*"), null)) {
            String[] names = Arrays.stream(m.getMBeanInfo(n).getAttributes()).filter(MBeanAttributeInfo::isReadable)
                    .map(MBeanAttributeInfo::getName).toArray(String[]::new);
            AttributeList got = m.getAttributes(n, names);
            asked += names.length;
            unanswered.addAll(Arrays.asList(names));
            got.asList().forEach(a -> unanswered.remove(a.getName()));
        }
        System.out.println("java.lang attributes: asked > 100 " + (asked > 100) + ", unanswered " + unanswered);

        ObjectName counter = new ObjectName(COUNTER);
        m.setAttribute(counter, new Attribute("Count", 5));
        Object sum = m.invoke(counter, "add", new Object[] {3}, new String[] {"int"});
        System.out.println("counter: add(3) after 5 = " + sum + ", Count = " + m.getAttribute(counter, "Count"));

        LinkedBlockingQueue<Notification> notes = new LinkedBlockingQueue<>();
        NotificationListener listener = (n, handback) -> notes.add(n);
        m.addNotificationListener(counter, listener, null, "handback");
        for (int i = 1; i <= 3; i++) {
            m.invoke(counter, "add", new Object[] {i}, new String[] {"int"});
        }
        List<String> seen = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Notification n = notes.poll(30, TimeUnit.SECONDS);
            seen.add(n == null ? "none within 30 s" : n.getType() + " " + n.getUserData() + " " + n.getMessage());
        }
        System.out.println("notifications: " + seen);
        m.removeNotificationListener(counter, listener);

        try {
            m.getAttribute(new ObjectName("dev.remora.it.jmx:type=Missing"), "Count");
            System.out.println("missing MBean: no exception");
        } catch (InstanceNotFoundException e) {
            System.out.println("missing MBean: " + e.getClass().getName());
        }
        try {
            m.invoke(counter, "fail", null, null);
            System.out.println("fail(): no exception");
        } catch (MBeanException e) {
            System.out.println("fail(): " + e.getClass().getName() + " of " + e.getCause());
        }

        long total = 0;
        for (int i = 0; i < 2000; i++) {
            total += (Integer) m.invoke(counter, "add", new Object[] {1}, new String[] {"int"});
        }
        System.out.println("2000 adds: last " + m.getAttribute(counter, "Count") + ", sum " + total);
    }

    private static void auth(JMXServiceURL url) {
        Object[] credentials = {new String[] {"monitor", "s3cret"}, new String[] {"monitor", "wrong"},
            new HashMap<>(Map.of("user", "monitor")), new ArrayList<>(List.of("monitor", "s3cret"))};
        for (Object cred : credentials) {
            Map<String, Object> env = new HashMap<>();
            env.put(JMXConnector.CREDENTIALS, cred);
            String what = cred.getClass().getSimpleName();
            try (JMXConnector c = JMXConnectorFactory.connect(url, env)) {
                System.out.println(what + ": connected, mbeans > 0 " + (c.getMBeanServerConnection().getMBeanCount() > 0));
            } catch (Exception e) {
                List<String> chain = new ArrayList<>();
                for (Throwable t = e; t != null; t = t.getCause()) {
                    chain.add(t.getClass().getSimpleName());
                }
                System.out.println(what + ": refused " + chain);
            }
        }
    }
}
