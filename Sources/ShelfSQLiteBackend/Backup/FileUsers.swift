internal import Foundation
internal import ShelfSQLite
internal import ShelfStore

/// The processes that have a database file open, as a person should see them: every process
/// whose descriptors (in `/proc`) name the file or its `-wal`/`-shm`/`-journal`, and the one
/// SQLite's `-shm` lock names (which finds a process of another user too). This process is
/// never counted.
enum FileUsers {
    /// Descriptions ("process 123 (shelf browse)") of the processes using the database at
    /// `path`, by PID; empty when none.
    static func processes(using path: String) -> [String] {
        var identities = Set<FileIdentityKey>()
        for suffix in ["", "-wal", "-shm", "-journal"] {
            var status = stat()
            if stat(path + suffix, &status) == 0 { identities.insert(FileIdentityKey(status)) }
        }
        var found: [Int32: String] = [:]
        let own = getpid()
        let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for name in processes {
            guard let pid = Int32(name), pid != own,
                let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(name)/fd")
            else { continue }
            for descriptor in descriptors {
                var status = stat()
                guard stat("/proc/\(name)/fd/\(descriptor)", &status) == 0,
                    identities.contains(FileIdentityKey(status))
                else { continue }
                found[pid] = describe(pid)
                break
            }
        }
        if let holder = LockHolder.user(ofDatabase: path), found[holder.pid] == nil {
            found[holder.pid] = holder.description
        }
        return found.keys.sorted().compactMap { found[$0] }
    }

    private static func describe(_ pid: Int32) -> String {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline"), !data.isEmpty else {
            return "process \(pid)"
        }
        let text = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }.joined(separator: " ")
        let clean = String(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) })
        return "process \(pid) (\(clean.count > 80 ? String(clean.prefix(80)) + "…" : clean))"
    }

    /// "a", "a and b", "a, b and c".
    static func listed(_ parts: [String]) -> String { StoreCopier.listed(parts) }
}

/// A file's device and inode.
private struct FileIdentityKey: Hashable {
    let device: UInt64
    let inode: UInt64

    init(_ status: stat) {
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
    }
}
