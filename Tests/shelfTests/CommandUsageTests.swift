import Foundation
import ShelfTestSupport
import Testing

/// How `shelf` answers a person who mistypes a command, asks for its version, or points a
/// command at a database that is not there.
@Suite("shelf usage (end to end)")
struct CommandUsageTests {
    @Test func anUnknownCommandGetsTheTopLevelUsage() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let result = try await shelf.run(["frobnicate"])
        #expect(result.status == 2)
        #expect(result.error.contains("'frobnicate' is not a shelf command"), "\(result.error)")
        #expect(result.error.contains("SUBCOMMANDS"))
        for command in ["browse", "import", "export", "watch", "backup"] {
            #expect(result.error.contains(command), "\(command) is listed")
        }
        #expect(!result.error.contains("shelf browse [--db"), "not browse's usage")
    }

    @Test func versionIsPrinted() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let result = try await shelf.run(["--version"])
        #expect(result.status == 0)
        #expect(result.output.split(separator: ".").count == 3, "\(result.output)")
    }

    @Test(arguments: ["high", "5", "4", "2.5"])
    func aBadPriorityIsAUsageError(_ priority: String) async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let result = try await shelf.run([
            "items", "add", "--db", shelf.databasePath, "--user", "ann@example.com", "--title", "T", "--priority",
            priority,
        ])
        #expect(result.status == 2)
        #expect(result.error.contains("is invalid for '--priority"), "\(result.error)")
        #expect(!FileManager.default.fileExists(atPath: shelf.databasePath), "nothing was created")
    }

    @Test(arguments: [
        ["items", "list"], ["items", "show", "1"], ["items", "done", "1"], ["items", "remove", "1"],
        ["users", "list"], ["users", "remove", "ann@example.com"], ["export", "items"], ["watch", "items"],
        ["backup", "copy.sqlite"],
    ])
    func aCommandThatReadsCreatesNoDatabase(_ arguments: [String]) async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let path = shelf.folder.appendingPathComponent("missing/shelf.sqlite").path
        let result = try await shelf.run(arguments + ["--db", path])
        #expect(result.status == 1, "\(arguments): \(result.error)")
        #expect(result.error.contains("no database at \(path)"), "\(result.error)")
        #expect(result.error.contains("shelf demo --db \(path)"), "the hint quotes the --db in use")
        #expect(!FileManager.default.fileExists(atPath: shelf.folder.appendingPathComponent("missing").path))
    }

    @Test func commandsThatAddDataCreateTheDatabase() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let path = shelf.folder.appendingPathComponent("new/shelf.sqlite").path
        let added = try await shelf.run(["users", "add", "--db", path, "--name", "Ann", "--email", "ann@example.com"])
        #expect(added.status == 0, "\(added.error)")
        #expect(FileManager.default.fileExists(atPath: path))
        let migrated = try await shelf.run(["migrate", "--db", path + "-2"])
        #expect(migrated.status == 0, "\(migrated.error)")
        let imported = try await shelf.run(
            ["import", "users", "-", "--db", path + "-3"], input: "name,email\nBob,bob@example.com\n")
        #expect(imported.status == 0, "\(imported.error)")
    }

    @Test func exportSaysWhatItWroteOnlyWhenTheRowsWentToAFile() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        #expect(
            try await shelf.run(["users", "add", "--db", db, "--name", "Ann", "--email", "ann@example.com"]).status == 0
        )
        let file = shelf.folder.appendingPathComponent("users.csv").path
        let toFile = try await shelf.run(["export", "users", "--db", db, "-o", file])
        #expect(toFile.status == 0)
        #expect(toFile.error.hasPrefix("Exported 1 user to \(file) (csv) in "), "\(toFile.error)")
        let quiet = try await shelf.run(["export", "users", "--db", db, "-o", file, "--quiet"])
        #expect(quiet.error.isEmpty)
        let toStdout = try await shelf.run(["export", "users", "--db", db])
        #expect(toStdout.error.isEmpty, "\(toStdout.error)")
        #expect(toStdout.output.contains("ann@example.com"))
    }

    @Test(arguments: ["", "sqlite:", "postgres:SECRET@127.0.0.1:54329/db", "postgres:/u:SECRET@127.0.0.1/db"])
    func aMistypedLocationCreatesNothing(_ location: String) async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let result = try await shelf.run(["users", "add", "--name", "A", "--email", "a@example.com", "--db", location])
        #expect(result.status == 1, "\(result.error)")
        #expect(!result.error.contains("SECRET"))
        let created = try FileManager.default.contentsOfDirectory(atPath: shelf.folder.path)
            .filter { !$0.hasPrefix("run-") && $0 != "home" }
        #expect(created.isEmpty, "\(created)")
        // A relative location would have been made in the working directory, which the child
        // shares with this process.
        if let folder = location.split(separator: "/").first, folder.hasPrefix("postgres:") {
            #expect(!FileManager.default.fileExists(atPath: String(folder)))
        }
    }

    /// Bytes that are not UTF-8 in an argument are refused, not stored "repaired" with U+FFFD.
    @Test func anArgumentThatIsNotUTF8IsRefused() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let errors = shelf.folder.appendingPathComponent("errors").path
        let status = try ChildProcess(
            "/bin/sh",
            [
                "-c", "exec \"$0\" items add --db \"$1\" --user a@example.com --title \"$(printf 'inv\\377utf')\"",
                ShelfProcess.executable.path, shelf.databasePath,
            ], environment: ["PATH": "/usr/bin:/bin"], stderr: errors
        ).wait()
        #expect(status == 2)
        #expect(try String(contentsOfFile: errors, encoding: .utf8).contains("is not valid UTF-8"))
        #expect(!FileManager.default.fileExists(atPath: shelf.databasePath))
    }

    /// A rejects file aimed at the input it reads is refused, and called what it is.
    @Test func rejectsAimedAtTheInputAreRefusedAsTheInput() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let input = shelf.folder.appendingPathComponent("users.csv").path
        try Data("name,email\nB,b@example.com\n".utf8).write(to: URL(fileURLWithPath: input))
        let result = try await shelf.run([
            "import", "users", input, "--db", shelf.databasePath, "--skip-invalid", "--rejects", input,
        ])
        #expect(result.status == 1)
        #expect(result.error.contains("it is \(input), which this command reads"), "\(result.error)")
        #expect(!result.error.contains("the database \(input)"))
        #expect(try String(contentsOfFile: input, encoding: .utf8) == "name,email\nB,b@example.com\n")
    }
}
