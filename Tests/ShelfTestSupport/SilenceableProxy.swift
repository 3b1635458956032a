import Foundation
package import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A TCP proxy on 127.0.0.1 in front of a local server, that can fall silent: then it
/// forwards nothing more either way and answers nothing, yet closes no connection, as a
/// network that drops every packet looks to a program. (The kernel still acknowledges what
/// reaches the proxy, so TCP keepalive does not see it: only a check that waits for an
/// answer from the server does.) Its threads are its own, not the cooperative pool's.
package final class SilenceableProxy: Sendable {
    package let port: Int
    /// How many connections it has accepted.
    package let accepted = Atomic<Int>(0)
    private let listener: Int32
    private let state = Mutex<(silent: Bool, closed: Bool, sockets: [Int32], muted: Set<Int32>)>(
        (false, false, [], []))

    /// Listens on a free port of 127.0.0.1 and forwards each connection to `targetPort`.
    package init(to targetPort: Int) throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var address = Self.loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) }
        }
        guard bound == 0, listen(listener, 16) == 0 else { throw ProxyError(what: "listen") }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in
            while true {
                let client = accept(listener, nil, nil)
                guard client >= 0 else { return }
                accepted.add(1, ordering: .relaxed)
                let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                var target = Self.loopback(port: targetPort)
                let connected = withUnsafePointer(to: &target) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
                let keep = state.withLock { state -> Bool in
                    state.sockets += [client, server]
                    return !state.closed
                }
                guard keep, connected == 0 else { continue }
                Thread.detachNewThread { self.pump(from: client, to: server) }
                Thread.detachNewThread { self.pump(from: server, to: client) }
            }
        }
    }

    /// From now on nothing passes, in either direction, on any connection.
    package func fallSilent() { state.withLock { $0.silent = true } }

    /// From now on everything passes again (what waited unread goes on), on every
    /// connection but those `silenceConnectionsMadeSoFar` muted: a network that came back.
    package func speakAgain() { state.withLock { $0.silent = false } }

    /// From now on nothing passes on the connections made so far; later ones pass (a
    /// network, or a firewall, that dropped the connections idle in a pool).
    package func silenceConnectionsMadeSoFar() { state.withLock { $0.muted.formUnion($0.sockets) } }

    /// Ends every connection (they see an end) and the listening.
    package func close() {
        let sockets = state.withLock { state -> [Int32] in
            state.closed = true
            defer { state.sockets = [] }
            return state.sockets
        }
        // Shut down, never closed: a thread may still be about to use a descriptor, and a
        // closed number can be reused by another test's file at once (closing a descriptor
        // of a file drops this process's POSIX locks on it). A few descriptors per test.
        shutdown(listener, Int32(SHUT_RDWR))
        for socket in sockets { shutdown(socket, Int32(SHUT_RDWR)) }
    }

    /// Copies what `source` sends to `destination` until either ends or the proxy falls
    /// silent; then it stops reading (what comes stays unread) and only waits for `close`.
    private func pump(from source: Int32, to destination: Int32) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let (silent, closed) = state.withLock { ($0.silent || $0.muted.contains(source), $0.closed) }
            if closed { break }
            if silent {
                usleep(50_000)
                continue
            }
            var poller = pollfd(fd: source, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 50) >= 0 else { break }
            guard poller.revents != 0 else { continue }
            // Checked again: what arrived after the fall stays unread.
            if state.withLock({ $0.silent || $0.muted.contains(source) }) { continue }
            let count = read(source, &buffer, buffer.count)
            guard count > 0 else { break }
            var sent = 0
            while sent < count {
                let wrote = buffer[sent..<count].withUnsafeBytes {
                    write(destination, $0.baseAddress, count - sent)
                }
                guard wrote > 0 else { break }
                sent += wrote
            }
        }
        shutdown(destination, Int32(SHUT_WR))
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}

package struct ProxyError: Error {
    package let what: String
}
