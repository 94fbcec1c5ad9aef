package dev.remora.it.jmx;

import java.lang.management.ManagementFactory;
import javax.management.ObjectName;

/**
 * A JVM managed remotely the way most applications are: the JDK's own JMX agent started by
 * {@code -Dcom.sun.management.jmxremote.port=...} (an RMI connector server and its registry, written by the JDK, not
 * by us), plus one application MBean, {@code dev.remora.it.jmx:type=Counter}. Prints READY and serves until killed.
 */
public final class JmxServer {
    public static void main(String[] args) throws Exception {
        ManagementFactory.getPlatformMBeanServer().registerMBean(new Counter(),
                new ObjectName("dev.remora.it.jmx:type=Counter"));
        System.out.println("READY");
        System.out.flush();
        Thread.currentThread().join();
    }
}
