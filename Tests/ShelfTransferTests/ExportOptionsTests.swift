import Foundation
import ShelfSQLiteBackend
import ShelfStore
import ShelfTestSupport
import Synchronization
import Testing

@testable import ShelfTransfer

/// `ExportOptions`: the choice and order of columns, spreadsheet safety, and progress.
@Suite struct ExportOptionsTests {
    /// A store with two users and three items, one titled like a formula.
    static func makeSeeded() async throws -> Store {
        let store = try await makeStore()
        try await store.items.insert(
            contentsOf: [
                NewItem(userID: User.ID(1), title: "Read Dune", notes: "two\nlines", priority: 2),
                NewItem(userID: User.ID(2), title: "=HYPERLINK(\"http://x\",\"a, b\")", notes: "-5", status: .done),
                NewItem(userID: User.ID(1), title: "@SUM(A1)", notes: "+1", priority: 3),
            ])
        return store
    }

    private func export(
        _ store: Store, items: Bool = true, _ options: ExportOptions, to path: String
    ) async throws -> String {
        if items {
            try await Exporter(store: store).exportItems(to: .file(path), options: options)
        } else {
            try await Exporter(store: store).exportUsers(to: .file(path), options: options)
        }
        return try String(contentsOfFile: path, encoding: .utf8)
    }

    @Test func columnsChooseAndOrderTheHeaderAndTheKeys() async throws {
        let scratch = try Scratch()
        let store = try await Self.makeSeeded()
        let columns = ["title", "status", "user"]
        let csv = try await export(store, ExportOptions(format: .csv, columns: columns), to: scratch.path("i.csv"))
        #expect(csv.hasPrefix("title,status,user\r\n"))
        let records = try csvRecords(csv)  // the rows after the header
        #expect(records.first == ["Read Dune", "open", "ann@example.com"])
        #expect(records.count == 3)

        for format in [TransferFormat.json, .ndjson] {
            let text = try await export(
                store, ExportOptions(format: format, columns: columns), to: scratch.path("i.\(format)"))
            let first = try #require(text.split(separator: "\n").first { $0.contains("{") })
            #expect(first.hasPrefix(#"{"title":"Read Dune","status":"open","user":"ann@example.com"}"#), "\(format)")
        }

        let users = try await export(
            store, items: false, ExportOptions(format: .csv, columns: ["email", "id"]), to: scratch.path("u.csv"))
        #expect(users == "email,id\r\nann@example.com,1\r\nbob@example.com,2\r\n")
        let json = try await export(
            store, items: false, ExportOptions(format: .ndjson, columns: ["created_at", "name"]),
            to: scratch.path("u.ndjson"))
        #expect(json.hasPrefix(#"{"created_at":""#) && json.contains(#"","name":"Ann"}"#))
    }

    @Test func theDefaultColumnsAreEveryColumnInOrder() async throws {
        let scratch = try Scratch()
        let store = try await Self.makeSeeded()
        for format in [TransferFormat.csv, .json, .ndjson] {
            let all = try await export(
                store, ExportOptions(format: format, columns: ExportOptions.itemColumns),
                to: scratch.path("a.\(format)"))
            let plain = try await export(store, ExportOptions(format: format), to: scratch.path("p.\(format)"))
            #expect(all == plain)
        }
        #expect(try scratch.read("p.csv").hasPrefix(ExportOptions.itemColumns.joined(separator: ",") + "\r\n"))
    }

    @Test(arguments: [
        (["title", "bogus"], "no column is named 'bogus'"),
        (["title", "title"], "the column 'title' is named twice"),
        (["title", ""], "an empty column name"),
        ([], "no columns are named"),
        (["Title"], "no column is named 'Title'"),
        (["name"], "no column is named 'name'"),
    ])
    func badColumnsFailBeforeWritingAndListTheValidNames(_ columns: [String], _ message: String) async throws {
        let scratch = try Scratch()
        let store = try await Self.makeSeeded()
        let path = scratch.path("bad.csv")
        let error = await #expect(throws: TransferError.self) {
            try await Exporter(store: store).exportItems(to: .file(path), options: ExportOptions(columns: columns))
        }
        #expect(error?.description.contains(message) == true, "\(String(describing: error))")
        #expect(
            error?.description.contains("id, user, title, notes, status, priority, created_at, updated_at") == true)
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.folder.path).isEmpty)
    }

    /// A subset with a title and an owner imports into a store that has the users, and the
    /// same subset exported from there is the same file.
    @Test(arguments: [TransferFormat.csv, .json, .ndjson])
    func aSubsetImportsBack(_ format: TransferFormat) async throws {
        let scratch = try Scratch()
        let source = try await Self.makeSeeded()
        let items = ExportOptions(format: format, columns: ["user", "title", "notes", "status", "priority"])
        let users = ExportOptions(format: format, columns: ["email", "name"])
        let first = try await export(source, items, to: scratch.path("items1.\(format)"))
        let firstUsers = try await export(source, items: false, users, to: scratch.path("users1.\(format)"))

        let target = try Store.temporary()
        let importer = Importer(store: target)
        #expect(try await importer.importUsers(from: .file(scratch.path("users1.\(format)"))).inserted == 2)
        #expect(try await importer.importItems(from: .file(scratch.path("items1.\(format)"))).inserted == 3)
        #expect(try await export(target, items, to: scratch.path("items2.\(format)")) == first)
        #expect(try await export(target, items: false, users, to: scratch.path("users2.\(format)")) == firstUsers)
        let copied = try await target.items.items(matching: ItemQuery(sortField: .title, sortDirection: .ascending))
        #expect(copied.map(\.title) == ["=HYPERLINK(\"http://x\",\"a, b\")", "@SUM(A1)", "Read Dune"])
        #expect(copied.map(\.priority) == [0, 3, 2])
    }

    @Test func excelSafePrefixesFormulaCellsInCSV() async throws {
        let scratch = try Scratch()
        let store = try await Self.makeSeeded()
        try await store.users.insert(NewUser(name: "\tTab", email: "-dash@example.com"))
        try await store.items.insert(NewItem(userID: User.ID(3), title: "\rreturn", notes: "=1,2"))
        let safe = try await export(store, ExportOptions(format: .csv, excelSafe: true), to: scratch.path("s.csv"))
        let rows = try csvRecords(safe)  // the rows after the header
        #expect(rows.count == 4)
        #expect(rows[1][2] == "'=HYPERLINK(\"http://x\",\"a, b\")" && rows[1][3] == "'-5")
        #expect(rows[2][2] == "'@SUM(A1)" && rows[2][3] == "'+1")
        #expect(rows[3][1] == "'-dash@example.com" && rows[3][2] == "'\rreturn" && rows[3][3] == "'=1,2")
        // Untouched: text that does not start a formula, numbers, times, the header.
        #expect(safe.hasPrefix(ExportOptions.itemColumns.joined(separator: ",") + "\r\n"))
        #expect(rows[0][2] == "Read Dune" && rows[0][3] == "two\nlines" && rows[0][5] == "2")
        #expect(rows[0][6]?.hasPrefix("20") == true)
        let users = try csvRecords(
            try await export(store, items: false, ExportOptions(excelSafe: true), to: scratch.path("u.csv")))
        #expect(users.count == 3)
        #expect(users[2][1] == "'\tTab" && users[2][2] == "'-dash@example.com" && users[0][1] == "Ann")
    }

    @Test func excelSafeIsOffByDefaultAndRoundTripsStayExact() async throws {
        let scratch = try Scratch()
        let store = try await Self.makeSeeded()
        let plain = try await export(store, ExportOptions(format: .csv), to: scratch.path("p.csv"))
        let explicit = try await export(store, ExportOptions(format: .csv, excelSafe: false), to: scratch.path("e.csv"))
        #expect(plain == explicit)
        #expect(!plain.contains("'"))
        let rows = try csvRecords(plain)
        #expect(rows[1][2] == "=HYPERLINK(\"http://x\",\"a, b\")" && rows[2][3] == "+1")
        let safe = try await export(store, ExportOptions(format: .csv, excelSafe: true), to: scratch.path("s.csv"))
        #expect(safe != plain)
    }

    @Test(arguments: [TransferFormat.json, .ndjson])
    func excelSafeIsRefusedForJSON(_ format: TransferFormat) async throws {
        let scratch = try Scratch()
        let store = try await Self.makeSeeded()
        let path = scratch.path("x.json")
        let error = await #expect(throws: TransferError.self) {
            try await Exporter(store: store).exportUsers(
                to: .file(path), options: ExportOptions(format: format, excelSafe: true))
        }
        #expect(error?.description.contains("excel-safe applies to CSV only") == true)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    /// Items are read as bytes in place: Unicode is written as it is. Text that is not UTF-8
    /// (written by another program) is refused, naming the item and the column, rather than
    /// written "repaired" with U+FFFD (the hostile tester's F7); no file is written.
    @Test(arguments: [TransferFormat.csv, .json])
    func unicodeIsWrittenAsItIsAndTextThatIsNotUTF8IsRefused(_ format: TransferFormat) async throws {
        let scratch = try Scratch()
        let store = try await Self.makeSeeded()
        try await store.items.insert(NewItem(userID: User.ID(2), title: "café 😀", notes: "ünï"))
        let text = try await export(store, ExportOptions(format: format), to: scratch.path("x.\(format)"))
        if format == .csv {
            #expect(try csvRecords(text).contains { $0.count > 3 && $0[2] == "café 😀" && $0[3] == "ünï" })
        } else {
            #expect(text.contains(#""title":"café 😀","notes":"ünï""#))
        }
        // Another program writes bytes that are not UTF-8.
        let sql = "UPDATE items SET title = CAST(X'4869FF' AS TEXT), notes = CAST(X'C3' AS TEXT) WHERE id = 1"
        let status = try ChildProcess(
            "/usr/bin/sqlite3", ["-batch", "-bail", try #require(store.path), sql],
            environment: ["PATH": "/usr/bin:/bin"], stderr: scratch.path("sqlite3.err")
        ).wait()
        #expect(status == 0, "\((try? scratch.read("sqlite3.err")) ?? "")")
        let refused = scratch.path("y.\(format)")
        await #expect {
            try await export(store, ExportOptions(format: format), to: refused)
        } throws: { error in
            let message = (error as? StoreError)?.message ?? ""
            return message.contains("items row 1 in ")
                && message.contains("that are not UTF-8 text (X'4869FF') in title")
        }
        #expect(!FileManager.default.fileExists(atPath: refused))
    }

    @Test func progressCountsFirstAndEndsAtTheRowsWritten() async throws {
        let scratch = try Scratch()
        let store = try await makeStore()
        let count = ProgressReporter.interval * 3 + 10  // a third of them, just past one interval, are Ann's
        try await store.items.insert(
            contentsOf: (0..<count).map { NewItem(userID: User.ID($0 % 3 == 0 ? 1 : 2), title: "item \($0)") })
        let seen = Mutex<[ExportProgress]>([])
        let written = try await Exporter(store: store).exportItems(
            matching: ItemQuery(owner: User.ID(1)), to: .file(scratch.path("p.csv")), options: ExportOptions(),
            progress: { progress in seen.withLock { $0.append(progress) } })
        let reports = seen.withLock { $0 }
        let expected = (0..<count).filter { $0 % 3 == 0 }.count
        #expect(written == expected)
        #expect(reports.map(\.rows) == [ProgressReporter.interval, written])
        #expect(reports.allSatisfy { $0.total == expected })

        let users = Mutex<[ExportProgress]>([])
        try await Exporter(store: store).exportUsers(
            to: .file(scratch.path("u.csv")), options: ExportOptions(),
            progress: { progress in users.withLock { $0.append(progress) } })
        #expect(users.withLock { $0.map(\.rows) } == [2] && users.withLock { $0.first?.total } == 2)
    }
}
