/**
 * Remora's RMI protocol layer: reroutes unmodified RMI calls onto Remora's lean protocol (issue 3).
 */
package dev.remora.rmi;
