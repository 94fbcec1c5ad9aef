package dev.remora.it.factory;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.remora.it.Jvm;
import dev.remora.it.Jvm.Jdk;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * An application that sets a global {@code RMISocketFactory} ({@link GlobalFactoryApp}): JRMP makes every socket with
 * it, so the agent leaves that JVM's RMI to JRMP, says why once, and the application sees what it sees without the
 * agent: the same results and the same sockets through its factory. Before, Remora's own sockets went around a factory
 * of plain sockets (its 200 calls on Remora's path, none through the application's factory), and a client with the
 * agent tried one Remora connection on a server whose factory XORs every byte.
 */
class GlobalFactoryIT {
    private static final String LINE = "[remora] the application set a global RMISocketFactory";

    /** {client, server}, both exited. */
    private static Jvm[] run(Jdk jdk, boolean agent, String mode) throws Exception {
        int port = Jvm.freePort();
        String app = GlobalFactoryApp.class.getName();
        try (Jvm server = Jvm.start(jdk, Jvm.rmiOptions(agent), app, "server", mode, String.valueOf(port))) {
            server.awaitLine("READY", 60);
            try (Jvm client = Jvm.start(jdk, Jvm.rmiOptions(agent), app, "client", mode, String.valueOf(port))) {
                assertEquals(0, client.waitFor(60), () -> client.describe() + "\nserver:\n" + server.describe());
                server.send("stop");
                assertEquals(0, server.waitFor(30), server::describe);
                return new Jvm[] {client, server};
            }
        }
    }

    private static String output(Jvm[] run) throws Exception {
        return run[0].stdout() + run[1].stdout();
    }

    @ParameterizedTest
    @EnumSource(Jdk.class)
    void theApplicationsFactoryMakesEverySocketAsWithoutTheAgent(Jdk jdk) throws Exception {
        for (String mode : List.of("plain", "xor")) {
            Jvm[] plain = run(jdk, false, mode);
            Jvm[] agent = run(jdk, true, mode);
            String both = mode + "\n" + agent[0].describe() + "\nserver:\n" + agent[1].describe();
            assertEquals(output(plain), output(agent), both);
            for (Jvm j : agent) {
                assertEquals(1, j.stderr().lines().filter(l -> l.startsWith(LINE)).count(), both);
                assertEquals(0, j.stat("calls_remora"), both);
            }
            assertEquals(200, agent[0].stat("calls_jrmp"), both);
        }
    }
}
