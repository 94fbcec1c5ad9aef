package dev.remora.it.jmx;

import java.lang.management.ManagementFactory;
import java.util.Map;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.remote.JMXConnectorServer;
import javax.management.remote.JMXConnectorServerFactory;
import javax.management.remote.JMXServiceURL;
import javax.management.remote.rmi.RMIConnectorServer;

/**
 * A JVM managed remotely the way most applications are: the JDK's own JMX agent started by
 * {@code -Dcom.sun.management.jmxremote.port=...} (an RMI connector server and its registry, written by the JDK, not
 * by us), plus one application MBean, {@code dev.remora.it.jmx:type=Counter}. Prints READY and serves until killed.
 * With the argument {@code factory} it also starts a connector server of its own through a custom
 * RMIServerSocketFactory ({@link PlainServerSockets}) and prints its address (the stub in the URL) as
 * {@code URL <address>} first.
 */
public final class JmxServer {
    public static void main(String[] args) throws Exception {
        MBeanServer mbs = ManagementFactory.getPlatformMBeanServer();
        mbs.registerMBean(new Counter(), new ObjectName("dev.remora.it.jmx:type=Counter"));
        if (args.length > 0 && args[0].equals("factory")) {
            System.out.println("URL " + startWithFactory(mbs).getAddress());
        }
        System.out.println("READY");
        System.out.flush();
        Thread.currentThread().join();
    }

    /** A connector server at an anonymous port, listening through {@link PlainServerSockets}. */
    static JMXConnectorServer startWithFactory(MBeanServer mbs) throws Exception {
        JMXConnectorServer cs = JMXConnectorServerFactory.newJMXConnectorServer(new JMXServiceURL("rmi", null, 0),
                Map.of(RMIConnectorServer.RMI_SERVER_SOCKET_FACTORY_ATTRIBUTE, new PlainServerSockets()), mbs);
        cs.start();
        return cs;
    }
}
