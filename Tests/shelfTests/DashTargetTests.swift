import Foundation
import ShelfStore
import Testing

/// Hostile round 13: `shelf copy a.sqlite -` and `shelf backup -` crashed (an illegal
/// instruction in Foundation's `deletingLastPathComponent`, reached from the check that a new
/// file is no database's companion). `-` is refused as a usage error saying what to give
/// instead, and the check no longer leans on Foundation's path functions.
@Suite struct DashTargetTests {
    @Test func copyAndBackupRefuseStandardOutputAsAUsageError() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let database = shelf.databasePath
        let added = try await shelf.run([
            "users", "add", "--name", "Ann", "--email", "ann@example.com", "--db", database,
        ])
        #expect(added.status == 0, "\(added.error)")
        for arguments in [
            ["copy", database, "-"], ["copy", "-", database + ".new"], ["backup", "-", "--db", database],
        ] {
            let result = try await shelf.run(arguments)
            #expect(result.status == 2, "\(arguments): \(result.status) \(result.error)")
            #expect(result.error.contains("standard"), "\(arguments): \(result.error)")
            #expect(!result.error.contains("crashed"), "\(arguments): \(result.error)")
        }
        #expect(!FileManager.default.fileExists(atPath: shelf.folder.appendingPathComponent("-").path))
    }

    @Test func aCompanionCheckOfNamesFoundationCannotSplitIsAnAnswer() throws {
        // Literals: the strings Foundation's path functions crashed on.
        for name in ["-", "-wal", "--", "-shm"] {
            #expect(throws: Never.self) { try OutputSafety.refuseCompanionName(name, protecting: ["a.sqlite"]) }
        }
        #expect(throws: OutputSafety.Refusal.self) {
            try OutputSafety.refuseCompanionName("a.sqlite-wal", protecting: ["a.sqlite"])
        }
    }
}
