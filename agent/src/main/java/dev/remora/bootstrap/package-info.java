/**
 * Code that instrumented JDK classes call. THIS PACKAGE MUST DEPEND ON java.base ONLY.
 *
 * <p>{@link dev.remora.bootstrap.RemoraBridge} is never loaded under this name: when the agent activates it renames it
 * to {@code java.io.RemoraBridge} (rewriting the class file's constant pool) and defines it in {@code java.base}
 * through a private lookup on {@code InputStream} (the package is opened to the agent with
 * {@code Instrumentation.redefineModule}). The
 * advice classes are renamed the same way before Byte Buddy inlines them, so inlined code in {@code java.base} and
 * {@code java.rmi} calls a public class of an exported {@code java.base} package: visible from every module and every
 * class loader, and without appending to the bootstrap search path (which turns CDS off for application classes and
 * prints a warning on JDK 17 and 25).
 */
package dev.remora.bootstrap;
