#if PostgreSQL
    import Foundation
    import ShelfPostgres
    import ShelfStore
    import ShelfTestSupport
    import Testing

    #if canImport(Glibc)
        import Glibc
    #endif

    /// What outside tools do to a shelf's counts and change log (issue 23's hostile tester,
    /// postgres/0013): `pg_dump` restores, a transaction that folds the counts and then sits
    /// idle, a count table dropped by hand.
    @Suite(.enabled(if: PostgresServer.url != nil, "set SHELF_TEST_POSTGRES to run the PostgreSQL tests"))
    struct PostgresOutsideToolsTests {
        /// Runs `tool` (pg_dump, psql) with the server's password from the test URL, as CI's
        /// server has one; returns its exit status and what it wrote on stderr.
        static func run(
            _ tool: String, _ arguments: [String], stdout: String = "/dev/null", name: String = "shelf-test"
        ) async throws -> (status: Int32, said: String) {
            let errors = FileManager.default.temporaryDirectory.appending(path: "shelf-tool-\(UUID().uuidString)").path
            defer { unlink(errors) }
            let environment = Self.environment(name: name)
            let status = try await onThread {
                try ChildProcess(tool, arguments, environment: environment, stdout: stdout, stderr: errors).wait()
            }
            return (status, (try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")
        }

        static func environment(name: String) -> [String: String] {
            var environment = ["PATH": "/usr/bin:/bin", "PGAPPNAME": name]
            if let password = PostgresServer.url.flatMap({ URLComponents(string: $0)?.password }) {
                environment["PGPASSWORD"] = password.removingPercentEncoding ?? password
            }
            return environment
        }

        /// Users and 600 items over 40 spans of time, shelf's updates and deletes, a fold, and
        /// deltas left after it: the totals and the deltas both hold rows.
        static func fill(_ store: PostgresBackend, at url: String) async throws -> [User.ID] {
            let owners = [
                try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com")),
                try await store.users.insert(NewUser(name: "Bob", email: "bob@example.com")),
            ]
            var generator = SeededRandomNumberGenerator(seed: 23)
            let span = PostgresItemCountTests.span
            let base = PostgresItemCountTests.base
            let items = (0..<600).map { _ in
                NewItem(
                    userID: owners.randomElement(using: &generator) ?? owners[0], title: "item",
                    status: Bool.random(using: &generator) ? .open : .done,
                    priority: Int.random(in: 0...3, using: &generator),
                    createdAt: Date(
                        timeIntervalSince1970: Double(base + Int64.random(in: 0..<(40 * span), using: &generator))
                            / 1000))
            }
            _ = try await store.items.insert(contentsOf: items)
            let stored = try await store.items.items(matching: ItemQuery(), after: nil, limit: 100)
            for item in stored.prefix(40) {
                var changed = item
                changed.status = item.status == .open ? .done : .open
                _ = try await store.items.update(changed)
            }
            for item in stored.suffix(20) { try await store.items.delete(id: item.id) }
            try await Scratch.execute("SELECT shelf_fold_item_counts()", at: url)
            _ = try await store.items.insert(NewItem(userID: owners[1], title: "after the fold", priority: 2))
            return owners
        }

        /// The restore's errors. (Before 0014 a data-only restore gave one: the source's change
        /// log rows clashing with those the target logged while its rows loaded, both logs'
        /// seqs starting at 1.)
        static func errors(_ said: String) -> [String] {
            said.split(separator: "\n").map(String.init).filter { $0.contains("ERROR") }
        }

        /// A `pg_dump --data-only` restored into a database shelf migrated, and a full dump
        /// restored into an empty database, load without errors and count exactly what they
        /// hold; shelf and psql write on afterwards. Before 0013 the data-only restore failed
        /// at the first user (the trigger functions named shelf_change_log unqualified, and
        /// pg_dump empties search_path), and the source's totals and deltas loaded on top of
        /// what the target counted.
        @Test func dataOnlyAndFullDumpsRestoreWithExactCounts() async throws {
            let folder = FileManager.default.temporaryDirectory.appending(path: "shelf-dump-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let dataOnly = folder.appending(path: "data.sql").path
            let full = folder.appending(path: "full.sql").path
            var owners: [User.ID] = []
            var expected = 0
            try await Scratch.withBackend { source, url in
                owners = try await Self.fill(source, at: url)
                expected = try await source.items.count(matching: ItemQuery())
                let dumped = try await Self.run("/usr/bin/pg_dump", ["--data-only", "-f", dataOnly, "-d", url])
                #expect(dumped.status == 0, "pg_dump --data-only failed: \(dumped.said)")
                let whole = try await Self.run(
                    "/usr/bin/pg_dump", ["--no-owner", "--no-privileges", "-f", full, "-d", url])
                #expect(whole.status == 0, "pg_dump failed: \(whole.said)")
            }
            #expect(expected == 581)

            try await Scratch.withBackend { target, url in
                let restored = try await Self.run("/usr/bin/psql", ["-X", "-q", "-d", url, "-f", dataOnly])
                #expect(Self.errors(restored.said).isEmpty, "the data-only restore failed: \(restored.said)")
                #expect(try await target.items.count(matching: ItemQuery()) == expected)
                try await PostgresItemCountTests.check(target, url, owners, "a data-only restore")
                _ = try await target.items.insert(NewItem(userID: owners[0], title: "written after", priority: 3))
                try await PostgresChangeLogMigrationTests.psql(
                    "INSERT INTO items (user_id, title, created_at, updated_at) VALUES (\(owners[1].rawValue), 'p', 1, 1)",
                    at: url)
                try await PostgresItemCountTests.check(target, url, owners, "writes after a data-only restore")
            }

            try await Scratch.withDatabase { url in
                let restored = try await Self.run("/usr/bin/psql", ["-X", "-q", "-d", url, "-f", full])
                #expect(Self.errors(restored.said).isEmpty, "the full restore failed: \(restored.said)")
                let target = try await PostgresBackend.open(url: url)
                #expect(target.appliedMigrations.isEmpty && target.repairs.isEmpty)
                #expect(try await target.items.count(matching: ItemQuery()) == expected)
                try await PostgresItemCountTests.check(target, url, owners, "a full restore")
                _ = try await target.items.insert(NewItem(userID: owners[0], title: "written after", priority: 3))
                try await PostgresItemCountTests.check(target, url, owners, "a write after a full restore")
                await target.close()
            }
        }

        /// A psql session folds the counts (it holds the folding lock and the rows it moved)
        /// and is left idle in its transaction. Other writers and folds go on and never wait:
        /// the folds that cannot take the lock compact the deltas instead, so they stay a few
        /// rows (one per owner, status, priority and spans) rather than one per statement;
        /// counts stay exact throughout. Before 0013 every fold found the lock taken and did
        /// nothing: 400 inserts left 400 deltas or more.
        @Test func aFoldLeftIdleInItsTransactionHoldsNoOneUp() async throws {
            try await Scratch.withBackend { store, url in
                let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
                _ = try await store.items.insert(
                    contentsOf: (0..<40).map { NewItem(userID: ann, title: "first \($0)", priority: $0 % 4) })

                let idle = try PsqlSession(url: url, name: "shelf-idle-folder")
                idle.send(
                    """
                    BEGIN;
                    INSERT INTO items (user_id, title, created_at, updated_at) VALUES (\(ann.rawValue), 'idle', 1, 1);
                    SELECT shelf_fold_item_counts();

                    """)
                // Its statements done, the session waits in its transaction, holding the lock.
                #expect(try await idle.idleInTransaction(), "the psql session never sat idle in its transaction")

                for round in 0..<4 {
                    for index in 0..<100 {
                        _ = try await store.items.insert(
                            NewItem(userID: ann, title: "w \(round) \(index)", priority: index % 4))
                    }
                    try await Scratch.execute("SELECT shelf_fold_item_counts()", at: url)
                }
                let deltas = try await Scratch.strings("SELECT count(*)::text FROM shelf_item_count_deltas", at: url)
                let left = Int(deltas.first ?? "") ?? -1
                // 8 groups (status open, 4 priorities, one or two spans of each time), plus the
                // rows the idle session moved and still holds: far fewer than 400.
                #expect(left >= 0 && left <= 100, "400 inserts under an idle fold left \(left) deltas")
                try await PostgresItemCountTests.check(store, url, [ann], "inserts under an idle fold")

                idle.send("COMMIT;\n")
                let status = try await idle.end()
                #expect(status == 0, "psql: \(idle.said)")
                try await Scratch.execute("SELECT shelf_fold_item_counts()", at: url)
                try await PostgresItemCountTests.check(store, url, [ann], "the idle transaction's commit")
                let after = try await Scratch.strings("SELECT count(*)::text FROM shelf_item_count_deltas", at: url)
                #expect(after == ["0"], "a fold with no one else folding moves every delta")
            }
        }

        /// A bulk change (the browser's Space, `p`, `o`) that waits for rows another session
        /// holds names that session when it gives up, as a SQLite write names the process
        /// holding the write lock: application, PID, user, address, state, and since when it
        /// has been in that state. Before, the state's time was not said.
        @Test func aBulkChangeThatWaitsNamesTheSessionHoldingItsRows() async throws {
            try await Scratch.withDatabase { url in
                var configuration = Store.Configuration.default
                configuration.writeTimeout = .seconds(5)
                let store = try await PostgresBackend.open(url: url, configuration: configuration)
                do {
                    let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
                    _ = try await store.items.insert(
                        contentsOf: (0..<10).map { NewItem(userID: ann, title: "item \($0)") })
                    let holder = try PsqlSession(url: url, name: "shelf-test-holder")
                    holder.send("BEGIN;\nUPDATE items SET title = 'held' WHERE id = (SELECT min(id) FROM items);\n")
                    #expect(try await holder.idleInTransaction(), "the psql session never sat idle")
                    let selection = ItemSelection(
                        matching: ItemQuery(), through: try await store.items.highestItemID())
                    do {
                        _ = try await store.items.updateItems(in: selection, .status(.done), progress: nil)
                        Issue.record("the bulk change did not wait for the held row")
                    } catch let error as StoreError {
                        #expect(error.code == .busy, "\(error.message)")
                        #expect(error.message.contains("the session 'shelf-test-holder' (PID "), "\(error.message)")
                        #expect(
                            error.message.contains("idle in transaction after 'UPDATE items SET title"),
                            "\(error.message)")
                        #expect(error.message.contains(", since "), "\(error.message)")
                        #expect(error.message.contains("nothing was written"), "\(error.message)")
                    }
                    holder.send("ROLLBACK;\n")
                    #expect(try await holder.end() == 0, "psql: \(holder.said)")
                    #expect(try await store.items.count(matching: ItemQuery(text: "status:done")) == 0)
                } catch {
                    await store.close()
                    throw error
                }
                await store.close()
            }
        }

        /// A dropped count table: a write of items and a count fail naming the table and
        /// `shelf migrate`; opening (what `shelf migrate` does) makes it again, counts the
        /// items again, and says so. Before 0013 the error was PostgreSQL's 42P01 with no
        /// advice, and migrate said "up to date".
        @Test func aDroppedCountTableIsNamedAndPutBackByMigrate() async throws {
            try await Scratch.withDatabase { url in
                var store = try await PostgresBackend.open(url: url)
                let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
                _ = try await store.items.insert(
                    contentsOf: (0..<60).map {
                        NewItem(userID: ann, title: "item \($0)", status: $0 % 3 == 0 ? .done : .open, priority: $0 % 4)
                    })
                try await Scratch.execute("SELECT shelf_fold_item_counts()", at: url)
                _ = try await store.items.insert(NewItem(userID: ann, title: "a delta"))
                for table in ["shelf_item_count_deltas", "shelf_item_totals"] {
                    try await Scratch.execute("DROP TABLE \(table)", at: url)
                    // Every insert appends deltas; only a fold (one in 1,024) writes the totals.
                    if table == "shelf_item_count_deltas" {
                        do {
                            _ = try await store.items.insert(NewItem(userID: ann, title: "refused"))
                            Issue.record("an insert with \(table) dropped succeeded")
                        } catch let error as StoreError {
                            #expect(error.message.contains("the table \(table) of the shelf"), "\(error.message)")
                            #expect(error.message.contains("shelf migrate"), "\(error.message)")
                        }
                    }
                    do {
                        _ = try await store.items.count(matching: ItemQuery(text: "status:done"))
                        Issue.record("a count with \(table) dropped succeeded")
                    } catch let error as StoreError {
                        #expect(error.message.contains("the table \(table) of the shelf"), "\(error.message)")
                        #expect(error.message.contains("shelf migrate"), "\(error.message)")
                    }
                    await store.close()
                    store = try await PostgresBackend.open(url: url)
                    #expect(store.repairs == ["put back \(table) and counted the items again"])
                    try await PostgresItemCountTests.check(store, url, [ann], "\(table) put back")
                    _ = try await store.items.insert(NewItem(userID: ann, title: "after", status: .done))
                    try await PostgresItemCountTests.check(store, url, [ann], "a write after \(table) was put back")
                }
                await store.close()
                let again = try await PostgresBackend.open(url: url)
                #expect(again.repairs.isEmpty)
                await again.close()
            }
        }
    }

    /// A psql session fed through a pipe, so a test can leave it idle in a transaction.
    final class PsqlSession {
        let url: String
        let name: String
        private let process: ChildProcess
        private var input: Int32
        private let errors: String

        /// Starts psql on `url` as the application `name` (how `pg_stat_activity` shows it).
        init(url: String, name: String) throws {
            // A psql that ended early makes a write to its pipe fail (EPIPE), not end the
            // test process (as SQLiteShell does).
            signal(SIGPIPE, SIG_IGN)
            var ends: [Int32] = [0, 0]
            guard pipe(&ends) == 0 else { throw ShellError(message: "cannot make a pipe") }
            errors = FileManager.default.temporaryDirectory.appending(path: "shelf-psql-\(UUID().uuidString)").path
            self.url = url
            self.name = name
            process = try ChildProcess(
                "/usr/bin/psql", ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", url],
                environment: PostgresOutsideToolsTests.environment(name: name), input: .descriptor(ends[0]),
                output: .file("/dev/null"), stderr: errors)
            close(ends[0])
            input = ends[1]
        }

        deinit {
            if input >= 0 { close(input) }
            if process.isRunning { process.signal(SIGKILL) }
            unlink(errors)
        }

        /// Writes `text` to psql's input.
        func send(_ text: String) {
            let bytes = Array(text.utf8)
            let written = bytes.withUnsafeBytes { write(input, $0.baseAddress, $0.count) }
            #expect(written == bytes.count, "psql took \(written) of \(bytes.count) bytes: \(said)")
        }

        /// Waits up to 60 s for the session to sit idle in its transaction (its statements
        /// done); false if it never did.
        func idleInTransaction() async throws -> Bool {
            for _ in 0..<600 {
                let states = try await Scratch.strings(
                    "SELECT state FROM pg_stat_activity WHERE application_name = '\(name)' "
                        + "AND datname = current_database()", at: url)
                if states == ["idle in transaction"] { return true }
                try await Task.sleep(for: .milliseconds(100))
            }
            return false
        }

        /// Closes psql's input and waits up to 60 s for its exit status.
        func end() async throws -> Int32 {
            close(input)
            input = -1
            for _ in 0..<600 where process.isRunning {
                try await Task.sleep(for: .milliseconds(100))
            }
            return process.isRunning ? -1 : process.wait()
        }

        /// What psql said on stderr so far.
        var said: String { (try? String(contentsOfFile: errors, encoding: .utf8)) ?? "" }
    }
#endif
