import Foundation
import ShelfReactive
import ShelfTestSupport
import Testing

/// The edges of `shelf copy` that hostile round 9 found (issue 25, F6-F10), through the real
/// binary: a damaged search index carried by the page copy, a full disk on the row path, the
/// `-wal` and `-shm` a reader of another user's store left, a killed copy's work file, and a
/// NUL in a source whose refusing trigger was dropped.
@Suite("shelf copy: hostile round 9's edges")
struct CopyEdgeFindingsTests {
    /// Another user's store read by a copy (its file not writable here, its folder writable):
    /// SQLite made its `-wal` and `-shm` as this user, and left them, so the store's owner
    /// could no longer write it ("attempt to write a readonly database"). Now they go when the
    /// copy closes the store.
    @Test(.enabled(if: getuid() == 0 && access("/usr/sbin/runuser", X_OK) == 0, "runs as other users"))
    func aCopyByAnotherUserLeavesNoWALTheOwnerCannotWrite() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let shared = shelf.folder.appendingPathComponent("shared").path
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true)
        #expect(chmod(shelf.folder.path, 0o755) == 0 && chmod(shared, 0o777) == 0)
        // The binary where other users may run it.
        let binary = shelf.folder.appendingPathComponent("shelf").path
        try FileManager.default.copyItem(atPath: ShelfProcess.executable.path, toPath: binary)
        let source = shared + "/theirs.sqlite"
        try await CopyFixture.make(source, shelf: shelf)
        #expect(chown(source, 1, 1) == 0)  // daemon's
        let target = shared + "/mine.sqlite"
        let copy = try ChildProcess(
            "/usr/sbin/runuser", ["-u", "nobody", "--", binary, "copy", source, target],
            environment: ["PATH": "/usr/bin:/bin"], stdout: "/dev/null"
        ).wait()
        #expect(copy == 0)
        let left = try FileManager.default.contentsOfDirectory(atPath: shared).sorted()
        #expect(left == ["mine.sqlite", "theirs.sqlite"], "\(left)")
        let added = try ChildProcess(
            "/usr/sbin/runuser",
            [
                "-u", "daemon", "--", binary, "items", "add", "--db", source, "--user", "ann@example.com", "--title",
                "Mine",
            ],
            environment: ["PATH": "/usr/bin:/bin"], stdout: "/dev/null"
        ).wait()
        #expect(added == 0, "the owner cannot write its store")
    }
}
