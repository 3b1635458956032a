import Foundation
import ShelfTestSupport

/// Small disks for full-disk tests.
enum Tmpfs {
    /// Whether this process may mount a tmpfs (root, in a container that allows it): tried
    /// once on a folder of its own.
    static func canMount() -> Bool {
        guard getuid() == 0 else { return false }
        let folder = NSTemporaryDirectory() + "shelf-mount-\(UUID().uuidString)"
        guard (try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)) != nil
        else { return false }
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let mounted =
            (try? ChildProcess("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", folder], environment: [:])
                .wait()) == 0
        if mounted { _ = try? ChildProcess("/bin/umount", [folder], environment: [:]).wait() }
        return mounted
    }
}
