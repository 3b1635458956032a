import Foundation
import ShelfTestSupport
import Testing

/// Esc during a bulk action, through the real binary in tmux: the action stops, and the store is
/// as it was (one transaction, rolled back), whether it was waiting for another program's lock or
/// writing.
@Suite("shelf browse: Esc cancels a bulk action")
struct BrowseBulkCancelTests {
    private func open(
        _ shelf: ShelfProcess, items: Int, width: Int = 110, environment: [String: String] = [:]
    ) async throws -> TmuxSession {
        let db = shelf.databasePath
        #expect(
            try await shelf.run(["users", "add", "--db", db, "--name", "Ada", "--email", "ada@example.com"]).status == 0
        )
        #expect(try await ChildProcess.sqlite3(db, CopyFixture.manyItems(items)) == 0)
        let tmux = try TmuxSession(
            ShelfProcess.executable.path + " browse --db " + TmuxSession.quote(db), width: width, height: 12,
            environment: environment.merging(["HOME": shelf.folder.path]) { _, home in home })
        try await tmux.waitFor(Self.grouped(items) + " items")
        try tmux.type("M")
        try await tmux.waitFor(Self.grouped(items) + " marked")
        return tmux
    }

    /// `count` as the browser writes it: 300,000.
    private static func grouped(_ count: Int) -> String {
        let digits = Array(String(count))
        return digits.enumerated().map { index, digit in
            index > 0 && (digits.count - index) % 3 == 0 ? ",\(digit)" : "\(digit)"
        }.joined()
    }

    private func openCount(_ db: String) async throws -> String {
        try await ChildProcess.sqlite3Output(db, "SELECT count(*) FROM items WHERE status = 'open';")
    }

    /// Another program holds the write lock: Space waits for it, Esc ends the wait, nothing is
    /// changed; once the lock is gone, Space works.
    @Test func escWhileWaitingForAnotherProgramsLockChangesNothing() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        let tmux = try await open(shelf, items: 2_000)
        let holder = try TmuxSession("sqlite3 " + TmuxSession.quote(db), width: 80, height: 10)
        try holder.type("BEGIN IMMEDIATE; SELECT 'holding';\n")
        try await holder.waitFor("holding")
        #expect(await CopyFixture.waitForWriteLock(of: db))

        try tmux.type(" ")
        try await tmux.waitFor("(Esc cancels)")
        try tmux.send("Escape")
        let cancelled = try await tmux.waitFor("cancelled: nothing was changed")
        #expect(cancelled.contains(line: "cancelled: nothing was changed"), "\(cancelled)")

        try holder.type("COMMIT;\n.quit\n")
        try await holder.waitFor("[exit 0]")
        #expect(try await openCount(db) == "2000")
        try tmux.type(" ")
        let done = try await tmux.waitFor("marked 2,000 items done")
        #expect(done.contains(line: "marked 2,000 items done"))
        #expect(try await openCount(db) == "0")
        try tmux.type("q")
        try await tmux.waitFor("[exit 0]")
    }

    /// Hostile tester (issue 26): a second browser waited silently while another program held
    /// the store's write lock (another browser's bulk change). It says who holds it, for a bulk
    /// change (Esc cancels it) and for one item's, and goes on once the lock is gone.
    @Test func aWriteThatWaitsForAnotherProgramsLockSaysWhoHoldsIt() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        let tmux = try await open(shelf, items: 2_000, width: 250)
        let holder = try TmuxSession("sqlite3 " + TmuxSession.quote(db), width: 80, height: 10)
        try holder.type("BEGIN IMMEDIATE; SELECT 'holding';\n")
        try await holder.waitFor("holding")
        #expect(await CopyFixture.waitForWriteLock(of: db))

        try tmux.type(" ")
        var screen = try await tmux.waitFor("is writing to this store")
        #expect(screen.contains(line: "waiting (Esc cancels): process "), "\(screen)")
        #expect(screen.contains(line: "(sqlite3 "), "the holder's command line: \(screen)")
        try holder.type("COMMIT;\n")
        screen = try await tmux.waitFor("marked 2,000 items done")
        #expect(!screen.contains(line: "is writing to this store"), "\(screen)")

        // One item's change (the marks cleared: M again), while the lock is held again.
        try tmux.type("M")
        try await tmux.waitFor { !$0.contains(line: "marked ·") }
        try holder.type("BEGIN IMMEDIATE; SELECT 'again';\n")
        try await holder.waitFor("again")
        try tmux.type(" ")
        screen = try await tmux.waitFor("is writing to this store")
        #expect(screen.contains(line: "waiting: process "), "\(screen)")
        try holder.type("COMMIT;\n.quit\n")
        try await holder.waitFor("[exit 0]")
        screen = try await tmux.waitFor("marked 1 item open")
        #expect(!screen.contains(line: "is writing to this store"), "\(screen)")
        try tmux.type("q")
        try await tmux.waitFor("[exit 0]")
    }

    /// Hostile tester (issue 26): the priority and owner prompts stayed open until a change of
    /// every marked item was done, and took the keys typed meanwhile (a `j` went into the email
    /// field). They close as soon as the answer is taken: the change runs behind, the list moves
    /// under `j`, and Esc cancels the change. Another program's lock keeps each change running
    /// for as long as the test needs.
    @Test func thePriorityAndOwnerPromptsCloseWhileTheChangeRuns() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        let tmux = try await open(shelf, items: 2_000)
        #expect(
            try await shelf.run(["users", "add", "--db", db, "--name", "Grace", "--email", "grace@example.com"]).status
                == 0)
        let holder = try TmuxSession("sqlite3 " + TmuxSession.quote(db), width: 80, height: 10)
        try holder.type("BEGIN IMMEDIATE; SELECT 'holding';\n")
        try await holder.waitFor("holding")
        #expect(await CopyFixture.waitForWriteLock(of: db))

        let prompts = [("p", "Priority of 2,000 items", "3"), ("o", "Owner of 2,000 items", "grace@example.com")]
        for (index, (key, title, answer)) in prompts.enumerated() {
            try tmux.type(key)
            try await tmux.waitFor(title)
            try tmux.type(answer)
            try tmux.send("Enter")
            // Before the fix the prompt stayed on screen until the lock was gone.
            let running = try await tmux.waitFor(timeout: .seconds(30)) {
                $0.contains(line: "(Esc cancels)") && !$0.contains(line: title)
            }
            #expect(!running.contains(line: title), "\(running)")
            try tmux.type("j")
            try await tmux.waitFor(" \(index + 2)/2,000 ")
            try tmux.send("Escape")
            try await tmux.waitFor("cancelled: nothing was changed")
        }
        try holder.type("COMMIT;\n.quit\n")
        try await holder.waitFor("[exit 0]")
        let unchanged = "SELECT count(*) FROM items WHERE priority = 0 AND user_id = 1;"
        #expect(try await ChildProcess.sqlite3Output(db, unchanged) == "2000")
        try tmux.type("q")
        try await tmux.waitFor("[exit 0]")
    }

    /// The terminal closes (SIGHUP) while the action waits for another program's lock: the
    /// browser ends at once, and the action with it; nothing is changed once the lock is gone
    /// (it went on and committed, with no session left to undo it: hostile tester).
    @Test func aHangupWhileAnActionWaitsCancelsIt() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        let tmux = try await open(shelf, items: 2_000)
        let holder = try TmuxSession("sqlite3 " + TmuxSession.quote(db), width: 80, height: 10)
        try holder.type("BEGIN IMMEDIATE; SELECT 'holding';\n")
        try await holder.waitFor("holding")
        #expect(await CopyFixture.waitForWriteLock(of: db))
        try tmux.type(" ")
        try await tmux.waitFor("(Esc cancels)")
        let browser = try #require(Self.process(running: ShelfProcess.executable.path, with: db))
        #expect(kill(browser, SIGHUP) == 0)
        // Within the lock's hold: before the fix the action waited for it (60 s) and then ran.
        let ended = try await tmux.waitFor("[exit 129]", timeout: .seconds(45))
        #expect(ended.contains(line: "[exit 129]"), "\(ended)")
        try holder.type("COMMIT;\n.quit\n")
        try await holder.waitFor("[exit 0]")
        #expect(try await openCount(db) == "2000")
        let records = "SELECT (SELECT count(*) FROM bulk_actions) || ' ' || (SELECT count(*) FROM bulk_action_items);"
        #expect(try await ChildProcess.sqlite3Output(db, records) == "0 0")
    }

    /// The process whose command line starts with `executable` and names `argument`.
    private static func process(running executable: String, with argument: String) -> pid_t? {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let pid = pid_t(entry),
                let data = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline")
            else { continue }
            let arguments = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            if arguments.first == executable, arguments.contains(argument) { return pid }
        }
        return nil
    }

    /// Esc while the action writes (its progress line shows): it stops, every item is as it
    /// was, and the browser goes on.
    @Test func escWhileWritingRollsEverythingBack() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        // Row by row: a change of the whole table sets its indexes aside and is done in about a
        // second, before Esc arrives.
        let tmux = try await open(shelf, items: 300_000, environment: ["SHELF_BULK_ACTION_MIN_ROWS": "100000000"])
        // The Esc is sent while the browser is stopped (SIGSTOP), so that it waits in the
        // terminal while the write is under way. Under load the write can still end before the
        // browser reads it (ci13a and ci13b, at load 25: every item done). Every outcome must be
        // all or nothing; one that ended first is undone and tried again, and one of three
        // tries must be cancelled.
        let browser = try #require(Self.process(running: ShelfProcess.executable.path, with: db))
        var cancelled = false
        for attempt in 1...3 where !cancelled {
            try tmux.type(" ")
            try await tmux.waitFor("(Esc cancels)")
            #expect(kill(browser, SIGSTOP) == 0)
            try tmux.send("Escape")
            #expect(kill(browser, SIGCONT) == 0)
            let after = try await tmux.waitFor(timeout: .seconds(180)) {
                $0.contains(line: "cancelled: nothing was changed") || $0.contains(line: "marked 300,000 items done")
            }
            if after.contains(line: "cancelled: nothing was changed") {
                cancelled = true
                #expect(try await openCount(db) == "300000")
            } else {
                #expect(try await openCount(db) == "0", "try \(attempt): all done, as the screen says")
                try tmux.type("u")
                _ = try await tmux.waitFor(timeout: .seconds(180)) { $0.contains { $0.contains("undid") } }
                #expect(try await openCount(db) == "300000", "try \(attempt): undone")
            }
        }
        #expect(cancelled, "Esc never arrived while the write ran in three tries")
        try tmux.type("q")
        try await tmux.waitFor("[exit 0]")
    }
}

/// The undo records of a session's bulk changes (before-values in the database, a deleted
/// item's title and notes among them) go when the browser quits: no later session can undo
/// them, and they stayed in the file, and in its backups, for a day (hostile tester).
@Suite("shelf browse: a session's undo records go when it quits")
struct BrowseUndoRecordsTests {
    @Test func quittingDeletesTheSessionsUndoRecords() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        #expect(
            try await shelf.run(["users", "add", "--db", db, "--name", "Ada", "--email", "ada@example.com"]).status == 0
        )
        #expect(try await ChildProcess.sqlite3(db, CopyFixture.manyItems(50)) == 0)
        let tmux = try TmuxSession(
            ShelfProcess.executable.path + " browse --db " + TmuxSession.quote(db), width: 110, height: 12,
            environment: ["HOME": shelf.folder.path])
        try await tmux.waitFor("50 items")
        try tmux.type("M")
        try await tmux.waitFor("50 marked")
        try tmux.type(" ")
        try await tmux.waitFor("marked 50 items done")
        let records = "SELECT (SELECT count(*) FROM bulk_actions) || ' ' || (SELECT count(*) FROM bulk_action_items);"
        #expect(try await ChildProcess.sqlite3Output(db, records) == "1 50", "kept while the session can undo")
        try tmux.type("q")
        try await tmux.waitFor("[exit 0]")
        #expect(try await ChildProcess.sqlite3Output(db, records) == "0 0")
        #expect(try await ChildProcess.sqlite3Output(db, "SELECT count(*) FROM items WHERE status = 'done';") == "50")
    }
}
