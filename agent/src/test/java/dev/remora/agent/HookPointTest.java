package dev.remora.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remora.agent.bridge.BridgeInjector;
import dev.remora.agent.hooks.HookCheck;
import dev.remora.agent.hooks.HookPoint;
import java.util.List;
import net.bytebuddy.dynamic.ClassFileLocator;
import org.junit.jupiter.api.Test;

class HookPointTest {

    @Test
    void thisJdkHasEveryHookPoint() {
        assertEquals(List.of(), Installer.missingHookPoints());
        assertEquals(List.of(), HookCheck.missing(HookPoint.OOS_FAST));
    }

    /**
     * remora.oos=fast forwards every public method of ObjectOutputStream and ObjectInputStream (those inherited
     * from OutputStream/InputStream end in them), so nothing of the JDK's format can reach a fast stream; the final
     * filter accessors stay the JDK's on purpose (the reader consults the stream's filter). One protected method is
     * forwarded too: readClassDescriptor, which an application's override calls while Remora's reader has it read a
     * class descriptor.
     */
    @Test
    void oosFastCoversEveryPublicStreamMethod() {
        for (Class<?> c : new Class<?>[] {java.io.ObjectOutputStream.class, java.io.ObjectInputStream.class}) {
            for (java.lang.reflect.Method m : c.getDeclaredMethods()) {
                if (!java.lang.reflect.Modifier.isPublic(m.getModifiers())
                        || java.lang.reflect.Modifier.isStatic(m.getModifiers())
                        || m.getName().endsWith("ObjectInputFilter")) {
                    continue;
                }
                String descriptor = java.lang.invoke.MethodType.methodType(m.getReturnType(), m.getParameterTypes())
                        .toMethodDescriptorString();
                long n = HookPoint.OOS_FAST.stream()
                        .filter(h -> h.typeName().equals(c.getName()) && h.matches(m.getName(), descriptor)).count();
                assertEquals(1, n, m.toString());
            }
        }
        assertEquals(2 + 23 + 24 + 1, HookPoint.OOS_FAST.size(), "headers, the public methods, readClassDescriptor");
    }

    @Test
    void aMissingPointIsReportedNotThrown() throws Exception {
        byte[] other;
        try (java.io.InputStream in = Object.class.getResourceAsStream("Object.class")) {
            other = in.readAllBytes();
        }
        assertEquals("no method sun.rmi.server.UnicastRef.invoke(Remote, Method, Object[], long)",
                HookCheck.findIn(HookPoint.ALL.get(0), other));
        assertTrue(HookCheck.findIn(HookPoint.ALL.get(0), new byte[] {1, 2, 3}).startsWith("class sun.rmi.server.UnicastRef"
                + " unreadable"));
    }

    @Test
    void theMethodsTableIsReadAsAsmReadsIt() throws Exception {
        String[][] classes = {{"java.base", "java.lang.String"}, {"java.base", "java.lang.Math"},
            {"java.base", "java.lang.Character"}, {"java.base", "java.io.ObjectInputStream"},
            {"java.rmi", "sun.rmi.server.UnicastRef"}, {"java.rmi", "sun.rmi.transport.tcp.TCPTransport$ConnectionHandler"},
            {"java.base", "java.lang.invoke.MethodHandles$Lookup"}};
        for (String[] c : classes) {
            byte[] file = HookCheck.jdkClassFile(c[0], c[1]);
            java.util.List<String> asm = new java.util.ArrayList<>();
            new org.objectweb.asm.ClassReader(file).accept(new org.objectweb.asm.ClassVisitor(org.objectweb.asm.Opcodes.ASM9) {
                @Override
                public org.objectweb.asm.MethodVisitor visitMethod(int access, String name, String descriptor,
                        String signature, String[] exceptions) {
                    asm.add(name + " " + descriptor);
                    return null;
                }
            }, 0);
            assertEquals(asm, HookCheck.methods(file), c[1]);
            assertTrue(asm.size() > 3, c[1]);
            byte[] cut = java.util.Arrays.copyOf(file, file.length / 2);
            assertThrows(RuntimeException.class, () -> HookCheck.methods(cut), c[1] + " cut in half");
        }
    }

    @Test
    void adviceIsServedWithTheBridgeRenamed() throws Exception {
        ClassFileLocator l = AdviceWeaver.adviceLocator(getClass().getClassLoader());
        for (HookPoint h : all()) {
            ClassFileLocator.Resolution r = l.locate(h.adviceName());
            assertTrue(r.isResolved(), h.adviceName());
            String text = new String(r.resolve(), java.nio.charset.StandardCharsets.ISO_8859_1);
            assertTrue(text.contains(BridgeInjector.TARGET), h.adviceName() + " calls java/io/RemoraBridge");
            assertTrue(!text.contains(BridgeInjector.SOURCE), h.adviceName() + " no longer names the source");
        }
        assertNotNull(l.locate(BridgeInjector.TARGET_NAME).resolve());
        assertTrue(!l.locate("java.lang.String").isResolved(), "only Remora's classes are served");
    }

    /** STYLE.md: every advice method suppresses Throwable (into RemoraBridge.adviceFailed). */
    @Test
    void everyAdviceMethodSuppressesThrowable() throws Exception {
        int checked = 0;
        for (HookPoint h : all()) {
            for (java.lang.reflect.Method m : Class.forName(h.adviceName()).getDeclaredMethods()) {
                net.bytebuddy.asm.Advice.OnMethodEnter enter =
                        m.getAnnotation(net.bytebuddy.asm.Advice.OnMethodEnter.class);
                net.bytebuddy.asm.Advice.OnMethodExit exit =
                        m.getAnnotation(net.bytebuddy.asm.Advice.OnMethodExit.class);
                if (enter != null) {
                    assertEquals(Throwable.class, enter.suppress(), m.toString());
                    checked++;
                }
                if (exit != null) {
                    assertEquals(Throwable.class, exit.suppress(), m.toString());
                    checked++;
                }
            }
        }
        assertTrue(checked >= all().size(), "found the advice methods");
    }

    private static List<HookPoint> all() {
        List<HookPoint> all = new java.util.ArrayList<>(HookPoint.ALL);
        all.addAll(HookPoint.OOS_FAST);
        return all;
    }

    @Test
    void jdkToolsAreRecognisedByMainClassOrModule() {
        String saved = System.getProperty("sun.java.command");
        try {
            System.setProperty("sun.java.command", "com.sun.tools.javac.Main -version");
            assertEquals("com.sun.tools.javac.Main", Installer.jdkTool());
            System.setProperty("sun.java.command", "com.example.RmiServer 1099");
            assertEquals(null, Installer.jdkTool());
            // launched as java -m module/class: jstatd by its class, jstat by its module
            System.setProperty("sun.java.command", "jdk.jstatd/sun.tools.jstatd.Jstatd -p 1099");
            assertEquals("jdk.jstatd/sun.tools.jstatd.Jstatd", Installer.jdkTool());
            System.setProperty("sun.java.command", "jdk.jcmd/sun.tools.jstat.Jstat -gcutil 1");
            assertEquals("jdk.jcmd/sun.tools.jstat.Jstat", Installer.jdkTool());
            // rmiregistry: java.rmi/sun.rmi.registry.RegistryImpl; it serves the registry only, which stays on JRMP
            System.setProperty("sun.java.command", "java.rmi/sun.rmi.registry.RegistryImpl 1099");
            assertEquals("java.rmi/sun.rmi.registry.RegistryImpl", Installer.jdkTool());
            System.setProperty("sun.java.command", "com.example.app/com.example.RmiServer 1099");
            assertEquals(null, Installer.jdkTool());
        } finally {
            System.setProperty("sun.java.command", saved);
        }
    }
}
