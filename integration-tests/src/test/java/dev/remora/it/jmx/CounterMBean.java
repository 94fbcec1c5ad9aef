package dev.remora.it.jmx;

/** The management interface of {@link Counter}. */
public interface CounterMBean {
    int getCount();

    void setCount(int count);

    /** Adds {@code n}, sends a notification carrying the new count, returns it. */
    int add(int n);

    /** Throws an application exception (a checked one, so JMX wraps it in an {@code MBeanException}). */
    void fail() throws Exception;
}
