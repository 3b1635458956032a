#if Server
    import Foundation
    import ShelfTestSupport

    /// `connect(2)` of `descriptor` to 127.0.0.1:`port`: 0, or -1 with `errno` set.
    func connectToLoopback(_ descriptor: Int32, port: Int) -> Int32 {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
    }

    /// A plain TCP connection to a served shelf, for requests no HTTP client sends (headers that
    /// never end, a body without end, a connection that sends nothing). Blocking calls: use it
    /// on a thread of its own (`RawConnection.onThread`), never on the cooperative pool.
    final class RawConnection: @unchecked Sendable {
        // @unchecked: the descriptor is only read; each connection is used by one thread.
        let descriptor: Int32

        /// Connects to `base` (`http://127.0.0.1:PORT`); sends and receives time out after 30 s.
        init(_ base: String) throws {
            guard let url = URL(string: base), let port = url.port else {
                throw ShellError(message: "not an address: \(base)")
            }
            descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { throw ShellError(message: "socket: \(errno)") }
            let connected = connectToLoopback(descriptor, port: port)
            guard connected == 0 else {
                close(descriptor)
                throw ShellError(message: "connect to \(base): errno \(errno)")
            }
            var timeout = timeval(tv_sec: 30, tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }

        deinit { close(descriptor) }

        /// Sends all of `bytes`; false when the server closed or reset the connection.
        func send(_ bytes: [UInt8]) -> Bool {
            var sent = 0
            while sent < bytes.count {
                let result = bytes[sent...].withUnsafeBytes {
                    Foundation.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                if result <= 0 { return false }
                sent += result
            }
            return true
        }

        func send(_ text: String) -> Bool { send(Array(text.utf8)) }

        /// What has arrived, without waiting; nil once the server closed (or reset) the
        /// connection and everything was read.
        func receiveAvailable() -> [UInt8]? {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            let count = buffer.withUnsafeMutableBytes {
                recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
            }
            if count > 0 { return Array(buffer[0..<count]) }
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK { return [] }
            return nil
        }

        /// Closes the connection's sending side (the client's FIN): a client that sent its whole
        /// request may, and one that has gone does the same.
        func closeSending() { shutdown(descriptor, Int32(SHUT_WR)) }

        /// Reads what the server sends until `done` holds for the text so far, the server closes
        /// the connection, or `limit` passes, whichever is first: the text, and whether the server
        /// closed. Polls every 10 ms; blocking: call it on a thread of its own (`onThread`).
        func receive(within limit: Duration = .seconds(60), until done: (String) -> Bool = { _ in false })
            -> (text: String, closed: Bool)
        {
            var bytes: [UInt8] = []
            let deadline = ContinuousClock.now + limit
            while ContinuousClock.now < deadline {
                guard let more = receiveAvailable() else { return (String(decoding: bytes, as: UTF8.self), true) }
                if more.isEmpty {
                    usleep(10_000)
                    continue
                }
                bytes += more
                if done(String(decoding: bytes, as: UTF8.self)) { break }
            }
            return (String(decoding: bytes, as: UTF8.self), false)
        }

        /// On a connection of its own, on a thread of its own: sends `request`, closes the sending
        /// side when `halfClose`, and reads the answer as `receive(within:until:)` does.
        /// - Throws: when the connection cannot be made or the request cannot be sent.
        static func exchange(
            _ base: String, _ request: String, halfClose: Bool = false, within limit: Duration = .seconds(60),
            until done: @escaping @Sendable (String) -> Bool = { _ in false }
        ) async throws -> (text: String, closed: Bool) {
            try await onThread {
                let connection = try RawConnection(base)
                guard connection.send(request) else { throw ShellError(message: "could not send the request") }
                if halfClose { connection.closeSending() }
                return connection.receive(within: limit, until: done)
            }
        }

        /// True once the server has closed the connection (a read returns end of file or a reset).
        var isClosedByServer: Bool {
            var byte: UInt8 = 0
            let count = recv(descriptor, &byte, 1, Int32(MSG_DONTWAIT | MSG_PEEK))
            if count == 0 { return true }
            if count < 0 { return !(errno == EAGAIN || errno == EWOULDBLOCK) }
            return false
        }

        /// Runs `body` on a thread of its own and returns its result.
        static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
            try await withCheckedThrowingContinuation { continuation in
                Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
            }
        }
    }

    /// The resident memory of process `pid` in bytes (Linux), or nil.
    func residentBytes(of pid: pid_t) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }.map { $0 * 1024 }
        }
        return nil
    }
#endif
