import Foundation
import ShelfTestSupport
import Testing

/// Marks, bulk delete, undo and copy through the real binary in tmux.
@Suite("shelf browse: marks, undo and copy", .serialized)
struct BulkBrowseTests {
    /// Ada and three items with notes; returns the export of the items as JSON.
    private func prepare(_ shelf: ShelfProcess) async throws -> String {
        let db = shelf.databasePath
        let user = try await shelf.run([
            "users", "add", "--db", db, "--name", "Ada Lovelace", "--email", "ada@example.com",
        ])
        #expect(user.status == 0)
        for title in ["First task", "Second task", "Third task"] {
            let added = try await shelf.run([
                "items", "add", "--db", db, "--user", "ada@example.com", "--title", title, "--notes",
                "Notes of \(title)",
            ])
            #expect(added.status == 0)
        }
        return try await export(shelf)
    }

    private func export(_ shelf: ShelfProcess) async throws -> String {
        let result = try await shelf.run(["export", "items", "--db", shelf.databasePath, "--format", "json"])
        #expect(result.status == 0, "\(result.error)")
        return result.output
    }

    private func browse(_ shelf: ShelfProcess, width: Int = 100, environment: [String: String] = [:]) throws
        -> TmuxSession
    {
        try TmuxSession(
            ShelfProcess.executable.path + " browse --db " + TmuxSession.quote(shelf.databasePath), width: width,
            height: 30, environment: ["HOME": shelf.folder.path].merging(environment) { $1 })
    }

    @Test func markThreeDeleteConfirmUndoBringsThemBackWithIDsAndNotes() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let before = try await prepare(shelf)
        let tmux = try browse(shelf)
        try await tmux.waitFor("3 items")
        try tmux.type("mmm")
        var screen = try await tmux.waitFor("3 marked")
        #expect(screen.filter { $0.hasPrefix("*") }.count == 3, "\(screen)")
        try tmux.type("d")
        try await tmux.waitFor("Delete 3 items, all marked? u undoes it.")
        try tmux.type("y")
        // The status line says so at the commit; the list follows when its live window has read
        // again (under load, a moment later): wait for both.
        screen = try await tmux.waitFor { $0.contains(line: "deleted 3 items") && !$0.contains(line: "First task") }
        #expect(try await export(shelf) == "[]\n")
        try tmux.type("u")
        screen = try await tmux.waitFor {
            $0.contains(line: "undid: delete 3 items") && $0.contains(line: "3 items ·")
                && $0.contains(line: "First task") && $0.contains(line: "Third task")
        }
        #expect(try await export(shelf) == before, "the same IDs, notes, times")
        try tmux.type("q")
        screen = try await tmux.waitFor("[exit")
        #expect(screen.contains(line: "[exit 0]"))
    }

    /// `M` on every item, then another process removes a user whose items are all below the
    /// rows the browser holds: their marks go, and `d` asks about the marked items that exist
    /// (it said "1,981 marked" and asked to delete 1,981 of 1,785).
    @Test func marksOfAUserRemovedElsewhereGoAndDeleteCountsWhatExists() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        for (name, email) in [("Grace Hopper", "grace@example.com"), ("Ada Lovelace", "ada@example.com")] {
            let user = try await shelf.run(["users", "add", "--db", db, "--name", name, "--email", email])
            #expect(user.status == 0, "\(user.error)")
            // Grace's first: older, so the list's first 200 rows are all Ada's.
            let rows = "title\n" + (1...300).map { "\(name) task \($0)\n" }.joined()
            let imported = try await shelf.run(
                ["import", "items", "-", "--db", db, "--format", "csv", "--user", email, "--quiet"], input: rows)
            #expect(imported.status == 0, "\(imported.error)")
        }
        let tmux = try browse(shelf)
        try await tmux.waitFor("600 items")
        try tmux.type("M")
        try await tmux.waitFor("600 marked · ")
        let removed = try await shelf.run(["users", "remove", "--db", db, "grace@example.com"])
        #expect(removed.status == 0, "\(removed.error)")
        var screen = try await tmux.waitFor { $0.contains(line: "300 marked · ") && $0.contains(line: "300 items") }
        #expect(screen.contains(line: "300 marked · "), "\(screen.joined(separator: "\n"))")
        try tmux.type("d")
        screen = try await tmux.waitFor("Delete 300 items, all marked?")
        #expect(screen.contains(line: "Delete 300 items, all marked?"), "\(screen.joined(separator: "\n"))")
        try tmux.type("y")
        try await tmux.waitFor("deleted 300 items")
        try tmux.type("q")
        screen = try await tmux.waitFor("[exit")
        #expect(screen.contains(line: "[exit 0]"))
    }

    @Test func yPutsTheTextInTmuxsBufferWithSetClipboardOn() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        _ = try await prepare(shelf)
        let tmux = try browse(shelf)
        try tmuxCommand(tmux, ["set-option", "-g", "set-clipboard", "on"])
        try await tmux.waitFor("3 items")
        try tmux.type("y")
        try await tmux.waitFor("copied 1 item to the clipboard")
        #expect(try tmuxCommand(tmux, ["show-buffer"]) == "#3 [open] Third task — Ada Lovelace\n")
        try tmux.type("jmmY")
        try await tmux.waitFor("copied 2 items as JSON to the clipboard")
        let json = try tmuxCommand(tmux, ["show-buffer"])
        #expect(json.hasPrefix("[\n{\"id\":1,") && json.contains("\"title\":\"Second task\""), "\(json)")
    }

    @Test func withSHELF_CLIPBOARDFileTheCopyIsTheExportsJSON() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let exported = try await prepare(shelf)
        let runtime = shelf.folder.appendingPathComponent("runtime")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
        let tmux = try browse(
            shelf, width: 220, environment: ["SHELF_CLIPBOARD": "file", "XDG_RUNTIME_DIR": runtime.path])
        try await tmux.waitFor("3 items")
        try tmux.type("MY")
        let path = runtime.appendingPathComponent("shelf-clipboard.json").path
        let screen = try await tmux.waitFor("copied 3 items as JSON to \(path)", timeout: .seconds(20))
        #expect(screen.contains(line: "copied 3 items as JSON to \(path)"), "\(screen.joined(separator: "\n"))")
        // The export's objects, byte for byte, in the order the list shows them (newest first;
        // the export goes by ID).
        let copied = try String(contentsOfFile: path, encoding: .utf8)
        let lines = { (text: String) in text.split(separator: "\n").map { $0.hasSuffix(",") ? $0.dropLast() : $0 } }
        #expect(lines(copied).sorted() == lines(exported).sorted(), "\(copied)")
        #expect(lines(copied).dropFirst().first?.hasPrefix("{\"id\":3,") == true, "\(copied)")
    }

    /// Runs a tmux command on the session's server and returns what it printed.
    @discardableResult
    private func tmuxCommand(_ session: TmuxSession, _ arguments: [String]) throws -> String {
        let output = NSTemporaryDirectory() + "\(session.socket)-\(UUID().uuidString).out"
        defer { try? FileManager.default.removeItem(atPath: output) }
        try ChildProcess(
            "/usr/bin/tmux", ["-L", session.socket, "-f", "/dev/null"] + arguments,
            environment: ["PATH": "/usr/bin:/bin", "TERM": "xterm-256color", "HOME": NSTemporaryDirectory()],
            stdout: output
        ).wait()
        return (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
    }
}
