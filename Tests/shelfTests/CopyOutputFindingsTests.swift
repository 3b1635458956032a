import Foundation
import ShelfTestSupport
import Testing

/// The hostile tester's findings in the files `shelf copy` and `shelf backup` write (issue 25):
/// their mode, what a refused backup leaves behind, and how a refusal names a symbolic link.
@Suite("copy and backup output files (end to end)")
struct CopyOutputFindingsTests {
    /// The mode a new file of this process gets: 0666 less the umask (read without changing it).
    private static func newFileMode() -> mode_t {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("Umask:") }
        let mask = line.flatMap { mode_t($0.dropFirst("Umask:".count).trimmingCharacters(in: .whitespaces), radix: 8) }
        return 0o666 & ~(mask ?? 0o022)
    }

    private static func mode(_ path: String) -> mode_t {
        var status = stat()
        return stat(path, &status) == 0 ? status.st_mode & 0o7777 : 0
    }

    /// The files were made 0600, where `sqlite3` (and every other file shelf writes) makes
    /// 0666 less the umask: 0644 under the usual 022.
    @Test(arguments: ["copy", "backup"])
    func aNewCopyOrBackupHasTheModeOfANewFile(command: String) async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let source = shelf.databasePath
        try await CopyFixture.make(source, shelf: shelf)
        let target = shelf.folder.appendingPathComponent("out.sqlite").path
        let result =
            command == "copy"
            ? try await shelf.run(["copy", source, target])
            : try await shelf.run(["backup", "--db", source, target])
        #expect(result.status == 0, "\(result.error)")
        let expected = Self.newFileMode()
        #expect(
            Self.mode(target) == expected,
            "mode \(String(Self.mode(target), radix: 8)), not \(String(expected, radix: 8))")
    }

    /// A backup that replaces an older one keeps that file's mode, as an export that replaces
    /// a file does (it was 0600 after every backup).
    @Test func aBackupOverAnOlderOneKeepsItsMode() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let source = shelf.databasePath
        try await CopyFixture.make(source, shelf: shelf)
        let target = shelf.folder.appendingPathComponent("backup.sqlite").path
        #expect(try await shelf.run(["backup", "--db", source, target]).status == 0)
        #expect(chmod(target, 0o640) == 0)
        let again = try await shelf.run(["backup", "--db", source, target])
        #expect(again.status == 0, "\(again.error)")
        #expect(Self.mode(target) == 0o640, "mode \(String(Self.mode(target), radix: 8))")
    }

    /// A backup refused because its target is a WAL database (another store, another
    /// program's database) left an empty `-wal` and a `-shm` beside that target: the check
    /// opened it read-only, and a read-only connection cannot remove them.
    @Test func aRefusedBackupLeavesNothingBesideItsTarget() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let source = shelf.databasePath
        try await CopyFixture.make(source, shelf: shelf)
        let store = shelf.folder.appendingPathComponent("other-store.sqlite").path
        let added = try await shelf.run(["users", "add", "--db", store, "--name", "Bo", "--email", "bo@example.com"])
        #expect(added.status == 0, "\(added.error)")
        let foreign = shelf.folder.appendingPathComponent("foreign.sqlite").path
        #expect(
            try await ChildProcess.sqlite3(
                foreign, "PRAGMA journal_mode = WAL; CREATE TABLE invoices (id INTEGER PRIMARY KEY);") == 0)
        for target in [store, foreign] {
            for suffix in ["-wal", "-shm"] {
                #expect(!FileManager.default.fileExists(atPath: target + suffix), "\(target)\(suffix) before")
            }
            let before = try Data(contentsOf: URL(fileURLWithPath: target))
            let refused = try await shelf.run(["backup", "--db", source, target])
            #expect(refused.status == 1, "\(refused.output)")
            #expect(refused.error.contains(target), "\(refused.error)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: target)) == before)
            for suffix in ["-wal", "-shm"] {
                #expect(!FileManager.default.fileExists(atPath: target + suffix), "\(target)\(suffix) left behind")
            }
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: shelf.folder.path)
        #expect(!left.contains { $0.hasPrefix(".") }, "no work file left: \(left)")
    }

    /// The look at an existing target goes through a `file:` URI (immutable): a name with
    /// `?`, `#`, `%` and spaces must still be read as that file, so an older backup under
    /// such a name is replaced, and another store under it refused.
    @Test func aBackupUnderANameWithURICharactersStillReplacesAnOlderOne() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let source = shelf.databasePath
        try await CopyFixture.make(source, shelf: shelf)
        let target = shelf.folder.appendingPathComponent("back up?x=1#a%20b.sqlite").path
        #expect(try await shelf.run(["backup", "--db", source, target]).status == 0)
        let again = try await shelf.run(["backup", "--db", source, target])
        #expect(again.status == 0, "\(again.error)")
        let store = shelf.folder.appendingPathComponent("st?re#%41.sqlite").path
        #expect(
            try await shelf.run(["users", "add", "--db", store, "--name", "Bo", "--email", "bo@example.com"]).status
                == 0)
        let refused = try await shelf.run(["backup", "--db", source, store])
        #expect(refused.error.contains("\(store) is a shelf store in use as one"), "\(refused.error)")
    }

    /// A backup to a symbolic link that points at the store was refused naming only the
    /// store's file: the refusal names the link the user typed, and where it leads.
    @Test(arguments: [true, false])
    func aBackupToALinkToTheStoreNamesTheLink(absolute: Bool) async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let source = shelf.databasePath
        try await CopyFixture.make(source, shelf: shelf)
        let link = shelf.folder.appendingPathComponent("latest-backup.sqlite").path
        let pointsAt = absolute ? source : (source as NSString).lastPathComponent
        #expect(symlink(pointsAt, link) == 0)
        let before = try CopyFixture.dump(source)
        let refused = try await shelf.run(["backup", "--db", source, link])
        #expect(refused.status == 1)
        let leadsTo = absolute ? source : shelf.folder.appendingPathComponent(pointsAt).path
        #expect(
            refused.error.contains("refusing to write \(link) (a symbolic link to \(leadsTo))"), "\(refused.error)")
        #expect(refused.error.split(separator: "\n").count == 1, "one line: \(refused.error)")
        #expect(try CopyFixture.dump(source) == before)
        var status = stat()
        #expect(lstat(link, &status) == 0 && status.st_mode & S_IFMT == S_IFLNK, "the link stays a link")
    }
}
