package dev.remora.it.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.remora.it.Jvm;
import dev.remora.it.Jvm.Jdk;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Spring's RMI remoting (spring-context 5.3, written by others), the way many legacy RMI applications export their
 * services: a plain interface behind Spring's {@code RmiInvocationHandler}, each call a serialized
 * {@code RemoteInvocation} (method name, parameter types as {@code Class} objects, arguments) and each outcome a
 * {@code RemoteInvocationResult}. With the agent on both sides the calls go on Remora's path with 0 fallbacks, and the
 * client prints what it prints without the agent, on JDK 17 and 25.
 */
class SpringRmiIT {
    /** Spring's jars, as the test class path has them. */
    private static List<Path> spring() throws Exception {
        List<Path> jars = new ArrayList<>();
        for (String c : List.of("org.springframework.remoting.rmi.RmiServiceExporter", // spring-context
                "org.springframework.aop.framework.ProxyFactory", "org.springframework.beans.BeanUtils",
                "org.springframework.core.SpringVersion", "org.apache.commons.logging.LogFactory", // spring-jcl
                "org.springframework.expression.ExpressionParser")) {
            jars.add(Path.of(Class.forName(c).getProtectionDomain().getCodeSource().getLocation().toURI()));
        }
        return jars;
    }

    /** {client, server}, both exited. */
    private static Jvm[] run(Jdk jdk, boolean agent) throws Exception {
        int port = Jvm.freePort();
        List<Path> libs = spring();
        String app = SpringApp.class.getName();
        try (Jvm server = Jvm.start(jdk, Jvm.rmiOptions(agent), libs, app, "server", String.valueOf(port))) {
            server.awaitLine("READY", 60);
            try (Jvm client = Jvm.start(jdk, Jvm.rmiOptions(agent), libs, app, "client", String.valueOf(port))) {
                assertEquals(0, client.waitFor(120), () -> client.describe() + "\nserver:\n" + server.describe());
                server.send("stop");
                assertEquals(0, server.waitFor(30), server::describe);
                return new Jvm[] {client, server};
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Jdk.class)
    void aSpringServiceSeesWhatItSeesWithoutTheAgent(Jdk jdk) throws Exception {
        Jvm[] plain = run(jdk, false);
        assertEquals(List.of("balances: {ann=300, bo=200, carla=500}",
                "open: ann:100@86400000[opened, deposit 100]",
                "open(-1): dev.remora.it.spring.Accounts$InsufficientFunds: negative deposit: -1",
                "square: [1, 4, 9, 1600000000]", "2000 pokes", "missing service: RemoteLookupFailureException"),
                plain[0].stdoutLines(), plain[0]::describe);
        Jvm[] agent = run(jdk, true);
        String both = agent[0].describe() + "\nserver:\n" + agent[1].describe();
        assertEquals(plain[0].stdoutLines(), agent[0].stdoutLines(), both);
        assertEquals(2004, agent[0].stat("calls_remora"), both);
        assertEquals(0, agent[0].stat("fallbacks"), both);
        assertEquals(0, agent[1].stat("fallbacks"), both);
    }
}
