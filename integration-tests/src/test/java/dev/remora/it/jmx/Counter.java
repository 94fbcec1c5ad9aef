package dev.remora.it.jmx;

import javax.management.Notification;
import javax.management.NotificationBroadcasterSupport;

/** A standard MBean with an attribute, operations and notifications: what a JMX client exercises over RMI. */
public final class Counter extends NotificationBroadcasterSupport implements CounterMBean {
    private int count;
    private long sequence;

    @Override
    public synchronized int getCount() {
        return count;
    }

    @Override
    public synchronized void setCount(int count) {
        this.count = count;
    }

    @Override
    public int add(int n) {
        Notification note;
        int now;
        synchronized (this) {
            now = count += n;
            note = new Notification("counter.added", this, ++sequence, "added " + n);
            note.setUserData(now);
        }
        sendNotification(note);
        return now;
    }

    @Override
    public void fail() throws Exception {
        throw new java.io.IOException("the counter refuses");
    }
}
