package dev.remora.it.spring;

import java.io.Serializable;
import java.util.Date;
import java.util.List;
import java.util.Map;

/** A plain service interface (not Remote): Spring's RMI exporter carries its calls as RemoteInvocation objects. */
public interface Accounts {
    Map<String, Long> balances(List<String> names);

    Account open(String owner, long cents) throws InsufficientFunds;

    int[] square(int[] values);

    void poke();

    /** A value with a Date and a nested list, as a service returns. */
    final class Account implements Serializable {
        private static final long serialVersionUID = 1L;

        final String owner;
        final long cents;
        final Date opened;
        final List<String> history;

        Account(String owner, long cents, Date opened, List<String> history) {
            this.owner = owner;
            this.cents = cents;
            this.opened = opened;
            this.history = history;
        }

        @Override
        public String toString() {
            return owner + ":" + cents + "@" + opened.getTime() + history;
        }
    }

    /** An application exception, declared by the service method. */
    final class InsufficientFunds extends Exception {
        private static final long serialVersionUID = 1L;

        InsufficientFunds(String message) {
            super(message);
        }
    }
}
