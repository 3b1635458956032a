import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A PostgreSQL cluster of the test's own (initdb into a temporary folder, its own port on
/// 127.0.0.1, trust authentication), for tests that restart or stop a server: never the
/// shared one. As root (CI), the server's programs run as the user `postgres`, as
/// `.ci/run` runs them; otherwise as the user running the tests. Its methods block: call
/// them on a thread of their own (`onThread`).
package final class ThrowawayCluster: Sendable {
    package let port: Int
    package let folder: String
    private let bin: String

    /// The newest PostgreSQL's programs, or nil when none is installed.
    package static var binFolder: String? {
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        guard let version = versions.compactMap({ Int($0) }).max() else { return nil }
        let bin = "\(root)/\(version)/bin"
        return FileManager.default.isExecutableFile(atPath: "\(bin)/initdb") ? bin : nil
    }

    package var url: String { "postgres://postgres@127.0.0.1:\(port)/postgres" }

    /// Creates and starts the cluster, its databases in `encoding` (with the C locale).
    package init(encoding: String = "UTF8") throws {
        guard let bin = Self.binFolder else { throw ClusterError(what: "no PostgreSQL installed") }
        self.bin = bin
        folder = FileManager.default.temporaryDirectory.appending(path: "shelf-pg-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        if geteuid() == 0, let user = getpwnam("postgres") {
            chown(folder, user.pointee.pw_uid, user.pointee.pw_gid)
        }
        port = try Self.freePort()
        try run(
            "initdb",
            ["-D", "\(folder)/data", "-U", "postgres", "--auth=trust", "--encoding=\(encoding)", "--locale=C"])
        try start()
    }

    package func start() throws {
        try run(
            "pg_ctl",
            [
                "-D", "\(folder)/data", "-w", "-t", "60", "-l", "\(folder)/log", "-o",
                "-p \(port) -k \(folder) -c listen_addresses=127.0.0.1 -c fsync=off", "start",
            ])
    }

    /// Restarts the server as an operator does (`pg_ctl restart -m fast`: every session
    /// is ended), and waits until it accepts connections again.
    package func restart() throws {
        try run("pg_ctl", ["-D", "\(folder)/data", "-w", "-t", "60", "-m", "fast", "restart"])
    }

    /// Stops the server as an operator does (`pg_ctl stop -m fast`); `start()` starts it again.
    package func stop() throws {
        try run("pg_ctl", ["-D", "\(folder)/data", "-w", "-t", "60", "-m", "fast", "stop"])
    }

    /// Stops the server and removes the folder.
    package func remove() {
        _ = try? run("pg_ctl", ["-D", "\(folder)/data", "-m", "immediate", "stop"])
        try? FileManager.default.removeItem(atPath: folder)
    }

    private func run(_ tool: String, _ arguments: [String]) throws {
        let program = "\(bin)/\(tool)"
        let child =
            if geteuid() == 0 {
                try ChildProcess(
                    "/usr/sbin/runuser", ["-u", "postgres", "--", program] + arguments,
                    environment: ["PATH": "/usr/bin:/bin"], stderr: "\(folder)/\(tool).err")
            } else {
                try ChildProcess(
                    program, arguments, environment: ["PATH": "/usr/bin:/bin"], stderr: "\(folder)/\(tool).err")
            }
        let status = child.wait()
        guard status == 0 else {
            let said = (try? String(contentsOfFile: "\(folder)/\(tool).err", encoding: .utf8)) ?? ""
            throw ClusterError(what: "\(tool) \(arguments.joined(separator: " ")) exited with \(status): \(said)")
        }
    }

    private static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else { throw ClusterError(what: "no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

package struct ClusterError: Error, CustomStringConvertible {
    package let what: String
    package var description: String { what }
}
