package remora.it.modular;

import java.rmi.registry.LocateRegistry;
import remora.it.modular.api.Echo;
import remora.it.modular.api.Refused;
import remora.it.modular.api.Sample;

/** Calls the {@link Echo} in the registry on port args[0] and prints what it got. */
public final class Client {
    public static void main(String[] args) throws Exception {
        Echo echo = (Echo) LocateRegistry.getRegistry("127.0.0.1", Integer.parseInt(args[0])).lookup("echo");
        String s = "";
        for (int i = 0; i < 2000; i++) {
            s = echo.echo("call " + i);
        }
        System.out.println("echo: " + s);
        System.out.println("twice: " + echo.twice(new Sample(21, "ab", new int[] {1, 2, 3}, new Note("kept", 42L))));
        try {
            echo.fail("no, thanks");
            System.out.println("fail: returned");
        } catch (Refused e) {
            System.out.println("fail: " + e);
        }
    }
}
