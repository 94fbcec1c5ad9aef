/**
 * A modular RMI application, as a user ships one: its remote interface's package is exported to java.rmi only, and it
 * does not require jdk.unsupported (so {@code java -m} leaves that module out of the boot layer).
 */
module remora.it.modular {
    requires java.rmi;

    exports remora.it.modular.api to java.rmi;
}
