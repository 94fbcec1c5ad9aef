package dev.remora.rmi;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.SequenceInputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.nio.channels.SocketChannel;

/**
 * The accepted socket handed back to JRMP after Remora peeked at its first bytes: reads replay those bytes first,
 * everything else goes to the real socket.
 */
final class ReplaySocket extends Socket {
    private final Socket s;
    private final InputStream in;

    ReplaySocket(Socket s, byte[] peeked, int n) throws IOException {
        this.s = s;
        this.in = new SequenceInputStream(new ByteArrayInputStream(peeked, 0, n), s.getInputStream());
    }

    @Override
    public InputStream getInputStream() {
        return in;
    }

    @Override
    public OutputStream getOutputStream() throws IOException {
        return s.getOutputStream();
    }

    @Override
    public void close() throws IOException {
        s.close();
    }

    @Override
    public boolean isClosed() {
        return s.isClosed();
    }

    @Override
    public boolean isConnected() {
        return s.isConnected();
    }

    @Override
    public boolean isBound() {
        return s.isBound();
    }

    @Override
    public boolean isInputShutdown() {
        return s.isInputShutdown();
    }

    @Override
    public boolean isOutputShutdown() {
        return s.isOutputShutdown();
    }

    @Override
    public void shutdownInput() throws IOException {
        s.shutdownInput();
    }

    @Override
    public void shutdownOutput() throws IOException {
        s.shutdownOutput();
    }

    @Override
    public void setTcpNoDelay(boolean on) throws SocketException {
        s.setTcpNoDelay(on);
    }

    @Override
    public boolean getTcpNoDelay() throws SocketException {
        return s.getTcpNoDelay();
    }

    @Override
    public void setSoTimeout(int timeout) throws SocketException {
        s.setSoTimeout(timeout);
    }

    @Override
    public int getSoTimeout() throws SocketException {
        return s.getSoTimeout();
    }

    @Override
    public void setKeepAlive(boolean on) throws SocketException {
        s.setKeepAlive(on);
    }

    @Override
    public boolean getKeepAlive() throws SocketException {
        return s.getKeepAlive();
    }

    @Override
    public void setSoLinger(boolean on, int linger) throws SocketException {
        s.setSoLinger(on, linger);
    }

    @Override
    public int getSoLinger() throws SocketException {
        return s.getSoLinger();
    }

    @Override
    public InetAddress getInetAddress() {
        return s.getInetAddress();
    }

    @Override
    public InetAddress getLocalAddress() {
        return s.getLocalAddress();
    }

    @Override
    public int getPort() {
        return s.getPort();
    }

    @Override
    public int getLocalPort() {
        return s.getLocalPort();
    }

    @Override
    public SocketAddress getRemoteSocketAddress() {
        return s.getRemoteSocketAddress();
    }

    @Override
    public SocketAddress getLocalSocketAddress() {
        return s.getLocalSocketAddress();
    }

    @Override
    public SocketChannel getChannel() {
        return null;
    }

    @Override
    public String toString() {
        return s.toString();
    }
}
