package dev.remora.agent.hooks;

import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * One place in the JDK that Remora instruments: a class by name, the methods by signature, the advice by name.
 * {@link #ALL} is the single list used both by the installer and by the self-check, so what
 * {@code java -jar remora-agent.jar} reports is what the agent would instrument. Plain data, no Byte Buddy: the
 * agent checks the points from the JDK's class files ({@link HookCheck}) and weaves them with Byte Buddy when the first
 * hooked class loads.
 */
public final class HookPoint {
    private static final String RMI = "dev.remora.agent.hooks.RmiAdvice$";
    private static final String STREAM = "dev.remora.agent.hooks.StreamAdvice$";
    private static final String FAST_OUT = "dev.remora.agent.hooks.FastOutputAdvice$";
    private static final String FAST_IN = "dev.remora.agent.hooks.FastInputAdvice$";
    private static final String OOS = "java.io.ObjectOutputStream";
    private static final String OIS = "java.io.ObjectInputStream";
    private static final String RMI_MODULE = "java.rmi";
    /** The JDK's DGC client: it registers every remote reference unmarshalled, before its first dirty call. */
    public static final String DGC_CLIENT = "sun.rmi.transport.DGCClient";
    private static final String STUBS_ARRIVED = RMI + "StubsArrived";
    private static final String BASE_MODULE = "java.base";

    public static final List<HookPoint> ALL = Collections.unmodifiableList(Arrays.asList(
            new HookPoint(RMI_MODULE, "sun.rmi.server.UnicastRef", "invoke",
                    "(Ljava/rmi/Remote;Ljava/lang/reflect/Method;[Ljava/lang/Object;J)",
                    "invoke(Remote, Method, Object[], long)", RMI + "ClientInvoke", "client calls"),
            new HookPoint(RMI_MODULE, "sun.rmi.server.UnicastServerRef", "exportObject",
                    "(Ljava/rmi/Remote;Ljava/lang/Object;Z)", "exportObject(Remote, Object, boolean)",
                    RMI + "Export", "server export"),
            new HookPoint(RMI_MODULE, "sun.rmi.server.UnicastServerRef", "dispatch",
                    "(Ljava/rmi/Remote;Ljava/rmi/server/RemoteCall;)", "dispatch(Remote, RemoteCall)",
                    RMI + "Dispatch", "server dispatch"),
            new HookPoint(RMI_MODULE, "sun.rmi.transport.tcp.TCPTransport$ConnectionHandler", "run0", "()",
                    "run0()", RMI + "Accept", "JRMP accept path"),
            new HookPoint(RMI_MODULE, DGC_CLIENT, "registerRefs", "(Lsun/rmi/transport/Endpoint;Ljava/util/List;)",
                    "registerRefs(Endpoint, List) (stubs received)", STUBS_ARRIVED, "early connections"),
            new HookPoint(BASE_MODULE, OOS, "writeObject", "(Ljava/lang/Object;)", "writeObject(Object)",
                    STREAM + "Write", "stream writes"),
            new HookPoint(BASE_MODULE, OOS, "writeUnshared", "(Ljava/lang/Object;)", "writeUnshared(Object)",
                    STREAM + "Write", "stream writes"),
            new HookPoint(BASE_MODULE, OIS, "readObject", "()", "readObject()", STREAM + "Read", "stream reads"),
            new HookPoint(BASE_MODULE, OIS, "readObject", "(Ljava/lang/Class;)",
                    "readObject(Class) (private, used by readString)", STREAM + "Read", "stream reads"),
            new HookPoint(BASE_MODULE, OIS, "readUnshared", "()", "readUnshared()", STREAM + "Read",
                    "stream reads")));

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
            fast(OIS, FAST_IN + "ReadClassDescriptor", "readClassDescriptor"),
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
        StringBuilder descriptor = new StringBuilder("(");
        for (int i = 0; i < args.length; i++) {
            text.append(i == 0 ? "" : ", ").append(args[i].getSimpleName());
            descriptor.append(args[i].descriptorString());
        }
        return new HookPoint(BASE_MODULE, typeName, name, descriptor.append(')').toString(),
                text.append(')').toString(), adviceName, "remora.oos=fast");
    }

    private final String module;
    private final String typeName;
    private final String methodName;
    private final String parameters;
    private final String methodText;
    private final String adviceName;
    private final String purpose;

    /**
     * @param module the JDK module whose class file is read for the check
     * @param parameters the method descriptor's parameter part, e.g. {@code (Ljava/lang/Object;)}: with the name it
     *     identifies the method whatever it returns
     */
    private HookPoint(String module, String typeName, String methodName, String parameters, String methodText,
            String adviceName, String purpose) {
        this.module = module;
        this.typeName = typeName;
        this.methodName = methodName;
        this.parameters = parameters;
        this.methodText = methodText;
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

    /**
     * True for the hook that opens Remora's connection to a server as a stub for one of its objects arrives: installed
     * only with {@code remora.connect.early=true}.
     */
    public boolean opensEarly() {
        return adviceName.equals(STUBS_ARRIVED);
    }

    public String typeName() {
        return typeName;
    }

    /** The class's internal name, as a {@code ClassFileTransformer} receives it. */
    public String internalName() {
        return typeName.replace('.', '/');
    }

    /** Whether the method {@code name} with JVM descriptor {@code descriptor} is this hook point's method. */
    public boolean matches(String name, String descriptor) {
        return methodName.equals(name) && descriptor.startsWith(parameters);
    }

    public String adviceName() {
        return adviceName;
    }

    /** e.g. {@code sun.rmi.server.UnicastRef.invoke(Remote, Method, Object[], long) [client calls]}. */
    public String describe() {
        return typeName + "." + methodText + " [" + purpose + "]";
    }

    /** e.g. {@code invoke(Remote, Method, Object[], long)}. */
    String methodText() {
        return methodText;
    }

    public String module() {
        return module;
    }
}
