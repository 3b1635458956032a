import Foundation
import ShelfTestSupport
import Testing

/// Hostile round 14: a store made on a disk that filled up while its schema was being made
/// was told "migration 0005_… failed and was rolled back: database or disk is full. Earlier
/// migrations stay applied; fix the SQL and run again": there is no SQL of the user's to fix.
/// It now says the disk is full, where, and that running again once there is room applies
/// the rest, which it does.
@Suite("A full disk while a store's schema is made")
struct FullDiskMigrationTests {
    @Test(.enabled(if: Tmpfs.canMount(), "mounts a tmpfs (root, with the right to mount)"))
    func aFullDiskSaysFreeSpaceAndTheNextRunFinishes() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let disk = shelf.folder.appendingPathComponent("disk").path
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
        #expect(
            try ChildProcess("/bin/mount", ["-t", "tmpfs", "-o", "size=256k", "tmpfs", disk], environment: [:]).wait()
                == 0)
        defer { _ = try? ChildProcess("/bin/umount", [disk], environment: [:]).wait() }
        let store = disk + "/s.sqlite"
        let add = ["users", "add", "--db", store, "--name", "Ann", "--email", "ann@example.com"]
        let full = try await shelf.run(add)
        #expect(full.status == 1)
        #expect(!full.error.contains("fix the SQL"), "\(full.error)")
        #expect(full.error.contains(store), "says where: \(full.error)")
        #expect(
            full.error.contains("the disk is full (")
                && full.error.contains("could not be applied and was rolled back")
                && full.error.contains("free space on that disk and run again, which applies the rest"),
            "\(full.error)")
        // With room, the same command applies the rest and adds the user.
        #expect(
            try ChildProcess("/bin/mount", ["-o", "remount,size=16m", disk], environment: [:]).wait() == 0)
        let again = try await shelf.run(add)
        #expect(again.status == 0, "\(again.error)")
        let status = try await shelf.run(["migrate", "--status", "--db", store])
        #expect(!status.output.contains("pending"), "\(status.output)")
        #expect(try await shelf.run(["users", "list", "--db", store]).output.contains("ann@example.com"))
    }
}

/// Hostile round 16: an import that failed for lack of room printed only SQLite's "free some
/// space and retry", where every other failed import says that nothing was imported.
@Suite("A full disk during an import")
struct FullDiskImportTests {
    @Test(.enabled(if: Tmpfs.canMount(), "mounts a tmpfs (root, with the right to mount)"))
    func aFullDiskSaysNothingWasImportedAndTheStoreIsUnchanged() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let disk = shelf.folder.appendingPathComponent("disk").path
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
        #expect(
            try ChildProcess("/bin/mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", disk], environment: [:]).wait()
                == 0)
        defer { _ = try? ChildProcess("/bin/umount", [disk], environment: [:]).wait() }
        let store = disk + "/s.sqlite"
        #expect(
            try await shelf.run(["users", "add", "--db", store, "--name", "Ann", "--email", "ann@example.com"]).status
                == 0)
        #expect(
            try await shelf.run(["items", "add", "--db", store, "--user", "ann@example.com", "--title", "Kept"]).status
                == 0)
        let notes = String(repeating: "n", count: 2_000)
        let csv = "title,user,notes\n" + (0..<3_000).map { "item \($0),ann@example.com,\(notes)\n" }.joined()
        let input = shelf.folder.appendingPathComponent("big.csv").path
        try Data(csv.utf8).write(to: URL(fileURLWithPath: input))
        let full = try await shelf.run(["import", "items", input, "--db", store])
        #expect(full.status == 1)
        #expect(full.error.contains("disk is full"), "\(full.error)")
        #expect(full.error.contains("Nothing was imported; the database is unchanged."), "\(full.error)")
        let listed = try await shelf.run(["items", "list", "--db", store])
        #expect(listed.output.contains("Kept") && !listed.output.contains("item 0"), "\(listed.output)")
    }
}
