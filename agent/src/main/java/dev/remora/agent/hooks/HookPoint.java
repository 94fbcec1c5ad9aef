package dev.remora.agent.hooks;

import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.matcher.ElementMatcher;
import net.bytebuddy.pool.TypePool;

import static net.bytebuddy.matcher.ElementMatchers.isPrivate;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;
import static net.bytebuddy.matcher.ElementMatchers.takesNoArguments;

/**
 * One place in the JDK that Remora instruments: a class by name, the methods by signature, the advice by name.
 * {@link #ALL} is the single list used both by the installer and by the self-check, so what
 * {@code java -jar remora-agent.jar} reports is what the agent would instrument.
 */
public final class HookPoint {
    private static final String RMI = "dev.remora.agent.hooks.RmiAdvice$";
    private static final String STREAM = "dev.remora.agent.hooks.StreamAdvice$";
    private static final String FAST_OUT = "dev.remora.agent.hooks.FastOutputAdvice$";
    private static final String FAST_IN = "dev.remora.agent.hooks.FastInputAdvice$";
    private static final String OOS = "java.io.ObjectOutputStream";
    private static final String OIS = "java.io.ObjectInputStream";

    public static final List<HookPoint> ALL = Collections.unmodifiableList(Arrays.asList(
            new HookPoint("sun.rmi.server.UnicastRef", "invoke(Remote, Method, Object[], long)",
                    named("invoke").and(takesArguments(4)).and(takesArgument(0, named("java.rmi.Remote")))
                            .and(takesArgument(1, named("java.lang.reflect.Method")))
                            .and(takesArgument(2, Object[].class)).and(takesArgument(3, long.class)),
                    RMI + "ClientInvoke", "client calls"),
            new HookPoint("sun.rmi.server.UnicastServerRef", "exportObject(Remote, Object, boolean)",
                    named("exportObject").and(takesArguments(3)).and(takesArgument(0, named("java.rmi.Remote")))
                            .and(takesArgument(2, boolean.class)),
                    RMI + "Export", "server export"),
            new HookPoint("sun.rmi.server.UnicastServerRef", "dispatch(Remote, RemoteCall)",
                    named("dispatch").and(takesArguments(2)).and(takesArgument(0, named("java.rmi.Remote")))
                            .and(takesArgument(1, named("java.rmi.server.RemoteCall"))),
                    RMI + "Dispatch", "server dispatch"),
            new HookPoint("sun.rmi.transport.tcp.TCPTransport$ConnectionHandler", "run0()",
                    named("run0").and(takesNoArguments()),
                    RMI + "Accept", "JRMP accept path"),
            new HookPoint("java.io.ObjectOutputStream", "writeObject(Object)",
                    named("writeObject").and(takesArguments(Object.class)), STREAM + "Write", "stream writes"),
            new HookPoint("java.io.ObjectOutputStream", "writeUnshared(Object)",
                    named("writeUnshared").and(takesArguments(Object.class)), STREAM + "Write", "stream writes"),
            new HookPoint("java.io.ObjectInputStream", "readObject()",
                    named("readObject").and(takesNoArguments()), STREAM + "Read", "stream reads"),
            new HookPoint("java.io.ObjectInputStream", "readObject(Class) (private, used by readString)",
                    named("readObject").and(isPrivate()).and(takesArguments(Class.class)), STREAM + "Read",
                    "stream reads"),
            new HookPoint("java.io.ObjectInputStream", "readUnshared()",
                    named("readUnshared").and(takesNoArguments()), STREAM + "Read", "stream reads")));

    /**
     * {@code remora.oos=fast} only (nothing of it is installed otherwise): the stream headers, and every public method
     * of ObjectOutputStream and ObjectInputStream but the final {@code get/setObjectInputFilter}, forwarded to
     * Remora's streams for streams whose class is exactly ObjectOutputStream/ObjectInputStream.
     */
    public static final List<HookPoint> OOS_FAST = Collections.unmodifiableList(Arrays.asList(
            fast(OOS, FAST_OUT + "Header", "writeStreamHeader"),
            fast(OOS, FAST_OUT + "WriteObject", "writeObject", Object.class),
            fast(OOS, FAST_OUT + "WriteUnshared", "writeUnshared", Object.class),
            fast(OOS, FAST_OUT + "DefaultWriteObject", "defaultWriteObject"),
            fast(OOS, FAST_OUT + "PutFields", "putFields"),
            fast(OOS, FAST_OUT + "WriteFields", "writeFields"),
            fast(OOS, FAST_OUT + "Reset", "reset"),
            fast(OOS, FAST_OUT + "UseProtocolVersion", "useProtocolVersion", int.class),
            fast(OOS, FAST_OUT + "Write", "write", int.class),
            fast(OOS, FAST_OUT + "WriteArray", "write", byte[].class),
            fast(OOS, FAST_OUT + "WriteArrayRange", "write", byte[].class, int.class, int.class),
            fast(OOS, FAST_OUT + "Flush", "flush"),
            fast(OOS, FAST_OUT + "Close", "close"),
            fast(OOS, FAST_OUT + "WriteBoolean", "writeBoolean", boolean.class),
            fast(OOS, FAST_OUT + "WriteByte", "writeByte", int.class),
            fast(OOS, FAST_OUT + "WriteShort", "writeShort", int.class),
            fast(OOS, FAST_OUT + "WriteChar", "writeChar", int.class),
            fast(OOS, FAST_OUT + "WriteInt", "writeInt", int.class),
            fast(OOS, FAST_OUT + "WriteLong", "writeLong", long.class),
            fast(OOS, FAST_OUT + "WriteFloat", "writeFloat", float.class),
            fast(OOS, FAST_OUT + "WriteDouble", "writeDouble", double.class),
            fast(OOS, FAST_OUT + "WriteBytes", "writeBytes", String.class),
            fast(OOS, FAST_OUT + "WriteChars", "writeChars", String.class),
            fast(OOS, FAST_OUT + "WriteUTF", "writeUTF", String.class),
            fast(OIS, FAST_IN + "Header", "readStreamHeader"),
            fast(OIS, FAST_IN + "ReadObject", "readObject"),
            fast(OIS, FAST_IN + "ReadUnshared", "readUnshared"),
            fast(OIS, FAST_IN + "DefaultReadObject", "defaultReadObject"),
            fast(OIS, FAST_IN + "ReadFields", "readFields"),
            fast(OIS, FAST_IN + "RegisterValidation", "registerValidation", java.io.ObjectInputValidation.class,
                    int.class),
            fast(OIS, FAST_IN + "Read", "read"),
            fast(OIS, FAST_IN + "ReadRange", "read", byte[].class, int.class, int.class),
            fast(OIS, FAST_IN + "Available", "available"),
            fast(OIS, FAST_IN + "Close", "close"),
            fast(OIS, FAST_IN + "ReadBoolean", "readBoolean"),
            fast(OIS, FAST_IN + "ReadByte", "readByte"),
            fast(OIS, FAST_IN + "ReadUnsignedByte", "readUnsignedByte"),
            fast(OIS, FAST_IN + "ReadChar", "readChar"),
            fast(OIS, FAST_IN + "ReadShort", "readShort"),
            fast(OIS, FAST_IN + "ReadUnsignedShort", "readUnsignedShort"),
            fast(OIS, FAST_IN + "ReadInt", "readInt"),
            fast(OIS, FAST_IN + "ReadLong", "readLong"),
            fast(OIS, FAST_IN + "ReadFloat", "readFloat"),
            fast(OIS, FAST_IN + "ReadDouble", "readDouble"),
            fast(OIS, FAST_IN + "ReadFully", "readFully", byte[].class),
            fast(OIS, FAST_IN + "ReadFullyRange", "readFully", byte[].class, int.class, int.class),
            fast(OIS, FAST_IN + "SkipBytes", "skipBytes", int.class),
            fast(OIS, FAST_IN + "ReadLine", "readLine"),
            fast(OIS, FAST_IN + "ReadUTF", "readUTF")));

    /** A remora.oos=fast hook point: the method {@code name(args)} declared by {@code typeName}. */
    private static HookPoint fast(String typeName, String adviceName, String name, Class<?>... args) {
        StringBuilder text = new StringBuilder(name).append('(');
        for (int i = 0; i < args.length; i++) {
            text.append(i == 0 ? "" : ", ").append(args[i].getSimpleName());
        }
        return new HookPoint(typeName, text.append(')').toString(), named(name).and(takesArguments(args)),
                adviceName, "remora.oos=fast");
    }

    private final String typeName;
    private final String methodText;
    private final ElementMatcher<? super MethodDescription> methods;
    private final String adviceName;
    private final String purpose;

    private HookPoint(String typeName, String methodText, ElementMatcher<? super MethodDescription> methods,
            String adviceName, String purpose) {
        this.typeName = typeName;
        this.methodText = methodText;
        this.methods = methods;
        this.adviceName = adviceName;
        this.purpose = purpose;
    }

    /**
     * True for hooks whose only job is a counter in the stats ({@code ObjectOutputStream}/{@code ObjectInputStream}
     * entries): the installer leaves them out unless {@code remora.stats=true} and {@code remora.stats.streams=true},
     * so by default (and in the compare script, which sets only the first) serialization carries no Remora advice.
     */
    public boolean countsOnly() {
        return adviceName.startsWith(STREAM);
    }

    public String typeName() {
        return typeName;
    }

    public ElementMatcher<? super MethodDescription> methods() {
        return methods;
    }

    public String adviceName() {
        return adviceName;
    }

    /** e.g. {@code sun.rmi.server.UnicastRef.invoke(Remote, Method, Object[], long) [client calls]}. */
    public String describe() {
        return typeName + "." + methodText + " [" + purpose + "]";
    }

    /**
     * Looks the hook point up in the running JDK's class files without loading the class.
     *
     * @return null when exactly one method matches, else why the point is missing
     */
    public String findIn(TypePool pool) {
        TypePool.Resolution r = pool.describe(typeName);
        return r.isResolved() ? findIn(r.resolve()) : "class " + typeName + " not found";
    }

    /**
     * Looks the hook point up among the JDK's classes through reflection: the class is loaded (not initialized),
     * which is cheaper than parsing its class file, and Byte Buddy retransforms it right after anyway.
     *
     * @return null when exactly one method matches, else why the point is missing
     */
    public String findLoaded() {
        try {
            return findIn(TypeDescription.ForLoadedType.of(Class.forName(typeName, false, null)));
        } catch (ClassNotFoundException | LinkageError e) {
            return "class " + typeName + " not found (" + e + ")";
        }
    }

    private String findIn(TypeDescription type) {
        int n = type.getDeclaredMethods().filter(methods).size();
        return n == 1 ? null : (n == 0 ? "no method " : n + " methods match ") + typeName + "." + methodText;
    }
}
