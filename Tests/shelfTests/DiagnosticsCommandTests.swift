import Foundation
import Testing

/// `--verbose` and `SHELF_LOG`: the libraries' diagnostics on stderr, silent by default.
@Suite("shelf diagnostics")
struct DiagnosticsCommandTests {
    @Test func silentByDefault() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let result = try await shelf.run([
            "users", "add", "--db", shelf.databasePath, "--name", "Ann", "--email", "a@x.io",
        ])
        #expect(result.status == 0)
        #expect(result.error.isEmpty)
    }

    @Test func verboseTellsWhatTheStoreDoes() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let result = try await shelf.run(
            ["users", "add", "--db", shelf.databasePath, "--name", "Ann", "--email", "a@x.io", "--verbose"])
        #expect(result.status == 0)
        #expect(result.error.contains("opened \(shelf.databasePath) in WAL mode"))
        #expect(result.error.contains("applied migration 0001_create_users_and_items"))
        #expect(result.output == "1\n", "logs stay off stdout")
        // Opening it again applies nothing.
        let again = try await shelf.run(["users", "list", "--db", shelf.databasePath, "--verbose"])
        #expect(again.error.contains("opened"))
        #expect(!again.error.contains("applied migration"))
    }

    @Test func slowStatementsAreLoggedWithTheirSQLButNotTheirValues() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        _ = try await shelf.run(["users", "add", "--db", shelf.databasePath, "--name", "Ann", "--email", "secret@x.io"])
        // A threshold of 0 ms calls every statement slow.
        let result = try await shelf.run(
            ["users", "list", "--db", shelf.databasePath],
            environment: ["SHELF_LOG": "debug", "SHELF_SLOW_QUERY_MS": "0"])
        #expect(result.status == 0)
        #expect(result.error.contains("slow statement"))
        #expect(result.error.contains("SELECT"))
        #expect(!result.error.contains("secret@x.io"), "bound values are never logged")
        // Statements under the threshold are not logged. The threshold is 10 minutes, not the
        // default 100 ms, which a statement on a loaded machine can pass (203 ms was seen).
        let quick = try await shelf.run(
            ["users", "list", "--db", shelf.databasePath],
            environment: ["SHELF_LOG": "debug", "SHELF_SLOW_QUERY_MS": "600000"])
        #expect(quick.status == 0)
        #expect(quick.error.contains("opened"), "the log is on: \(quick.error)")
        #expect(!quick.error.contains("slow statement"))
    }

    @Test func checkpointsAreLogged() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        // 20,000 items in one transaction grow the WAL past the checkpoint threshold.
        let result = try await shelf.run(["demo", "--db", shelf.databasePath, "--verbose"])
        #expect(result.status == 0)
        #expect(result.error.contains("checkpoint"))
    }

    @Test func anUnknownLevelIsRefusedWithTheLevelsThatExist() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let result = try await shelf.run(
            ["users", "list", "--db", shelf.databasePath], environment: ["SHELF_LOG": "loud"])
        #expect(result.status == 1)
        #expect(result.error.contains("SHELF_LOG=loud is not a log level"))
        #expect(result.error.contains("debug"))
        #expect(!FileManager.default.fileExists(atPath: shelf.databasePath), "nothing was opened")
    }

    @Test func watchLogsCommitsOfOtherProcesses() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        _ = try await shelf.run(["users", "add", "--db", shelf.databasePath, "--name", "Ann", "--email", "a@x.io"])
        let log = shelf.folder.appendingPathComponent("watch.err").path
        let watch = try RunningShelf(["watch", "items", "--db", shelf.databasePath, "--verbose"], stderr: log)
        _ = await watch.waitForLines(1)
        _ = try await shelf.run(["items", "add", "--db", shelf.databasePath, "--user", "a@x.io", "--title", "Dune"])
        let lines = await watch.waitForLines(2)
        #expect(lines.contains { $0.contains("Dune") })
        let deadline = ContinuousClock.now + .seconds(10)
        var text = ""
        while ContinuousClock.now < deadline {
            text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if text.contains("commit seen: items") { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(text.contains("commit seen: items"))
        #expect(text.contains("a file event"))
    }

    /// The browser draws on the terminal stderr writes to: logs would scramble the screen, so
    /// they are withheld, and it says so after it quits. With stderr redirected they are kept.
    @Test func theBrowserWithholdsLogsFromItsOwnScreen() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        _ = try await shelf.run(["users", "add", "--db", shelf.databasePath, "--name", "Ann", "--email", "a@x.io"])
        let log = shelf.folder.appendingPathComponent("browse.err").path
        let command = ShelfProcess.executable.path + " browse --verbose --db " + TmuxSession.quote(shelf.databasePath)
        let tmux = try TmuxSession(command, width: 100, height: 20)
        try await tmux.waitFor("Press n")
        #expect(try !tmux.capture().contains(line: "debug"), "no log line on the screen")
        try tmux.type("q")
        let after = try await tmux.waitFor("[exit 0]")
        #expect(after.contains(line: "logs were not shown: standard error is the browser's terminal; add 2>FILE"))

        let kept = try TmuxSession(command + " 2>" + TmuxSession.quote(log), width: 100, height: 20)
        try await kept.waitFor("Press n")
        try kept.type("q")
        let screen = try await kept.waitFor("[exit 0]")
        #expect(!screen.contains(line: "logs were not shown"))
        #expect(try String(contentsOfFile: log, encoding: .utf8).contains("opened"))
    }
}
