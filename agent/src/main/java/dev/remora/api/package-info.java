/**
 * Remora's optional API, shipped as its own dependency-free jar ({@code remora-agent-<version>-api.jar}, Maven
 * classifier {@code api}) and not in the agent jar: an application that wants a future for one call writes
 * {@code Remora.async(() -> stub.m(x))}. Without the agent, or when Remora cannot carry the call, the call runs at
 * once, as written.
 */
package dev.remora.api;
