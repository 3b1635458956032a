import Foundation
import ShelfSQLiteBackend
import ShelfStore
import ShelfTestSupport
import Testing

@testable import ShelfTransfer

@Suite struct RoundTripTests {
    /// Values that break naive writers: quotes, separators, line breaks, Unicode, spaces at the
    /// ends, control characters, and empty versus missing notes.
    static let titles = [
        "plain", "a, comma", "a \"quote\"", "two\nlines", "crlf\r\nend", "  spaces  ", "tab\tin", "café 😀 日本",
        "\"", ",", "back\\slash", "esc\u{1B}[31m", "=1+2", "null", "RTL \u{202E}x",
    ]
    static let notes: [String?] = [nil, "", " ", "note, \"with\" all\r\nof it", "ünïcode", "\n"]

    @Test(arguments: TransferFormat.allCases)
    func exportImportExportIsByteIdentical(_ format: TransferFormat) async throws {
        let scratch = try Scratch()
        let source = try Store.temporary()
        let ann = try await source.users.insert(
            NewUser(
                name: "  Ann, \"the\" first ", email: "ann@example.com",
                createdAt: Date(timeIntervalSince1970: -86_400.5)))
        let bob = try await source.users.insert(NewUser(name: "Bøb\nLine", email: "bob@example.com"))
        var items: [NewItem] = []
        for (index, title) in Self.titles.enumerated() {
            items.append(
                NewItem(
                    userID: index % 2 == 0 ? ann : bob, title: title, notes: Self.notes[index % Self.notes.count],
                    status: index % 3 == 0 ? .done : .open, priority: index % 4,
                    createdAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(index) * 1.001)))
        }
        try await source.items.insert(contentsOf: items)
        try await source.items.delete(id: Item.ID(3))

        let ext = format.rawValue
        try await Exporter(store: source).exportUsers(format: format, to: .file(scratch.path("users1.\(ext)")))
        try await Exporter(store: source).exportItems(format: format, to: .file(scratch.path("items1.\(ext)")))

        let target = try Store.temporary()
        let importer = Importer(store: target)
        let users = try await importer.importUsers(from: .file(scratch.path("users1.\(ext)")))
        let imported = try await importer.importItems(from: .file(scratch.path("items1.\(ext)")))
        #expect(users.inserted == 2 && imported.inserted == Self.titles.count - 1)

        try await Exporter(store: target).exportUsers(format: format, to: .file(scratch.path("users2.\(ext)")))
        try await Exporter(store: target).exportItems(format: format, to: .file(scratch.path("items2.\(ext)")))
        #expect(try scratch.read("users1.\(ext)") == scratch.read("users2.\(ext)"))
        let first = try Data(contentsOf: URL(fileURLWithPath: scratch.path("items1.\(ext)")))
        let second = try Data(contentsOf: URL(fileURLWithPath: scratch.path("items2.\(ext)")))
        #expect(first == second)

        let copied = try await target.items.items(matching: ItemQuery())
        let original = try await source.items.items(matching: ItemQuery())
        #expect(copied.map(\.title) == original.map(\.title))
        #expect(copied.map(\.notes) == original.map(\.notes))
        #expect(copied.map(\.id) == original.map(\.id))
    }

    @Test func jsonOutputIsValidForFoundation() async throws {
        let scratch = try Scratch()
        let store = try await makeStore()
        let owner = try #require(try await store.users.user(email: "ann@example.com"))
        try await store.items.insert(contentsOf: Self.titles.map { NewItem(userID: owner.id, title: $0) })
        try await Exporter(store: store).exportItems(format: .json, to: .file(scratch.path("x.json")))
        let parsed = try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: scratch.path("x.json"))))
        let titles = try #require(parsed as? [[String: Any]]).compactMap { $0["title"] as? String }
        #expect(Set(titles) == Set(Self.titles))
    }

    @Test func emptyExportsAreWellFormed() async throws {
        let scratch = try Scratch()
        let store = try Store.temporary()
        for format in TransferFormat.allCases {
            try await Exporter(store: store).exportItems(format: format, to: .file(scratch.path("e.\(format)")))
        }
        #expect(try scratch.read("e.csv") == "id,user,title,notes,status,priority,created_at,updated_at\r\n")
        #expect(try scratch.read("e.json") == "[]\n")
        #expect(try scratch.read("e.ndjson") == "")
        let summary = try await Importer(store: store).importItems(from: .file(scratch.path("e.json")))
        #expect(summary.rows == 0)
    }

    @Test func filtersSelectItems() async throws {
        let scratch = try Scratch()
        let store = try await makeStore()
        let ann = try #require(try await store.users.user(email: "ann@example.com")).id
        let bob = try #require(try await store.users.user(email: "bob@example.com")).id
        try await store.items.insert(contentsOf: [
            NewItem(userID: ann, title: "river garden", status: .done), NewItem(userID: ann, title: "moth"),
            NewItem(userID: bob, title: "river"),
        ])
        let count = try await Exporter(store: store).exportItems(
            matching: ItemQuery(owner: ann, text: "riv"), format: .ndjson, to: .file(scratch.path("f.ndjson")))
        #expect(count == 1)
        #expect(try scratch.read("f.ndjson").contains("river garden"))
    }

    @Test func failedExportLeavesTheOldFile() async throws {
        let scratch = try Scratch()
        let path = try scratch.file("keep.csv", "old")
        let store = try Store.temporary()
        // Another process breaks the database under the store: the export fails midway.
        #expect(try await ChildProcess.sqlite3(try #require(store.path), "DROP TABLE items") == 0)
        await #expect(throws: (any Error).self) {
            try await Exporter(store: store).exportItems(format: .csv, to: .file(path))
        }
        #expect(try scratch.read("keep.csv") == "old")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.folder.path) == ["keep.csv"])
    }
}
