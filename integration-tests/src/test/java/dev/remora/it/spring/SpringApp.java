package dev.remora.it.spring;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.Arrays;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.springframework.remoting.RemoteAccessException;
import org.springframework.remoting.rmi.RmiProxyFactoryBean;
import org.springframework.remoting.rmi.RmiServiceExporter;

/**
 * A service exported with Spring's RMI remoting, as legacy Spring applications do, and its client through Spring's
 * proxy. {@code server PORT}: exports {@link Accounts} as "accounts" in a registry on PORT it creates, prints READY,
 * stops at end of input. {@code client PORT}: calls each method and prints what it got.
 */
@SuppressWarnings("deprecation") // Spring 5.3 deprecates its RMI remoting; applications still run on it
public final class SpringApp {
    private SpringApp() {
    }

    static final class Service implements Accounts {
        @Override
        public Map<String, Long> balances(List<String> names) {
            Map<String, Long> m = new TreeMap<>();
            for (String n : names) {
                m.put(n, (long) n.length() * 100);
            }
            return m;
        }

        @Override
        public Account open(String owner, long cents) throws InsufficientFunds {
            if (cents < 0) {
                throw new InsufficientFunds("negative deposit: " + cents);
            }
            return new Account(owner, cents, new Date(86_400_000L), List.of("opened", "deposit " + cents));
        }

        @Override
        public int[] square(int[] values) {
            int[] r = values.clone();
            for (int i = 0; i < r.length; i++) {
                r[i] *= r[i];
            }
            return r;
        }

        @Override
        public void poke() {
        }
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[1]);
        if (args[0].equals("server")) {
            RmiServiceExporter exporter = new RmiServiceExporter();
            exporter.setServiceName("accounts");
            exporter.setService(new Service());
            exporter.setServiceInterface(Accounts.class);
            exporter.setRegistryPort(port);
            exporter.afterPropertiesSet();
            System.out.println("READY");
            new BufferedReader(new InputStreamReader(System.in)).readLine();
            exporter.destroy();
            return;
        }
        RmiProxyFactoryBean factory = new RmiProxyFactoryBean();
        factory.setServiceUrl("rmi://127.0.0.1:" + port + "/accounts");
        factory.setServiceInterface(Accounts.class);
        factory.afterPropertiesSet();
        Accounts accounts = (Accounts) factory.getObject();
        System.out.println("balances: " + accounts.balances(Arrays.asList("ann", "bo", "carla")));
        System.out.println("open: " + accounts.open("ann", 100));
        try {
            accounts.open("bo", -1);
            System.out.println("open(-1): returned");
        } catch (Accounts.InsufficientFunds e) {
            System.out.println("open(-1): " + e);
        }
        System.out.println("square: " + Arrays.toString(accounts.square(new int[] {1, 2, 3, 40_000})));
        for (int i = 0; i < 2000; i++) {
            accounts.poke();
        }
        System.out.println("2000 pokes");
        // the service goes away: the proxy's next call fails the way Spring reports it
        RmiProxyFactoryBean gone = new RmiProxyFactoryBean();
        gone.setServiceUrl("rmi://127.0.0.1:" + port + "/no-such-service");
        gone.setServiceInterface(Accounts.class);
        gone.setLookupStubOnStartup(false);
        gone.afterPropertiesSet();
        try {
            ((Accounts) gone.getObject()).poke();
            System.out.println("missing service: returned");
        } catch (RemoteAccessException e) {
            System.out.println("missing service: " + e.getClass().getSimpleName());
        }
    }
}
