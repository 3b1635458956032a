import Foundation
import ShelfStore
import ShelfTransfer
import Testing

/// Imports and exports on every backend: byte-identical round trips, every mode, all or
/// nothing.
@Suite("Conformance: import and export")
struct TransferConformanceTests {
    static let users = csv(
        #"""
        id,name,email,created_at
        1,Ann,ann@example.com,2024-01-02T03:04:05.678Z
        2,"Bob ""the builder""",bob@example.com,2024-01-03T00:00:00.000Z
        7,Zoë 👩🏽‍💻,zoe@example.com,2024-02-29T23:59:59.999Z

        """#)
    static let items = csv(
        #"""
        id,user,title,notes,status,priority,created_at,updated_at
        1,ann@example.com,Read Dune,"two
        lines",open,2,2024-01-02T03:04:05.678Z,2024-01-05T00:00:00.000Z
        2,bob@example.com,"Comma, quote "" and tab\#t",,done,0,2024-01-03T00:00:00.000Z,2024-01-03T00:00:00.000Z
        5,zoe@example.com,e\#u{301}t\#u{E9} \#u{202E}rtl\#u{202C},\#u{2028},open,3,2024-03-01T00:00:00.000Z,2024-03-01T00:00:00.000Z

        """#)

    /// CSV as shelf writes it: records end with CRLF (RFC 4180); a line break inside a
    /// quoted field stays as it is.
    static func csv(_ text: String) -> String {
        var out = ""
        var quoted = false
        for character in text {
            if character == "\"" { quoted.toggle() }
            out += character == "\n" && !quoted ? "\r\n" : String(character)
        }
        return out
    }

    static func file(_ name: String, _ text: String) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-conformance-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent(name).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func export(_ store: Store, _ table: String, _ format: TransferFormat) async throws -> String {
        let path = try file("out.\(format.rawValue)", "")
        let exporter = Exporter(store: store)
        if table == "users" {
            try await exporter.exportUsers(format: format, to: .file(path))
        } else {
            try await exporter.exportItems(format: format, to: .file(path))
        }
        return try String(contentsOfFile: path, encoding: .utf8)
    }

    @Test(arguments: Backend.available)
    func csvRoundTripsAreByteIdenticalInEveryFormat(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let importer = Importer(store: store)
            let users = try await importer.importUsers(from: .file(try Self.file("u.csv", Self.users)))
            #expect(users.inserted == 3)
            let items = try await importer.importItems(from: .file(try Self.file("i.csv", Self.items)))
            #expect(items.inserted == 3)
            #expect(try await Self.export(store, "users", .csv) == Self.users)
            #expect(try await Self.export(store, "items", .csv) == Self.items)
            // JSON and NDJSON out, then into a second store of the same backend, then out again.
            for format in [TransferFormat.json, .ndjson] {
                let usersOut = try await Self.export(store, "users", format)
                let itemsOut = try await Self.export(store, "items", format)
                try await backend.withStore { (copy: Store) async throws in
                    let importer = Importer(store: copy)
                    _ = try await importer.importUsers(from: .file(try Self.file("u.\(format.rawValue)", usersOut)))
                    _ = try await importer.importItems(from: .file(try Self.file("i.\(format.rawValue)", itemsOut)))
                    #expect(try await Self.export(copy, "users", format) == usersOut)
                    #expect(try await Self.export(copy, "items", format) == itemsOut)
                    #expect(try await Self.export(copy, "items", .csv) == Self.items)
                }
            }
        }
    }

    @Test(arguments: Backend.available)
    func upsertAndReplaceLeaveExactlyTheInput(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let importer = Importer(store: store)
            _ = try await importer.importUsers(from: .file(try Self.file("u.csv", Self.users)))
            _ = try await importer.importItems(from: .file(try Self.file("i.csv", Self.items)))
            let changed = Self.csv(
                #"""
                id,user,title,notes,status,priority,created_at,updated_at
                1,ann@example.com,Read Dune,"two
                lines",open,2,2024-01-02T03:04:05.678Z,2024-01-05T00:00:00.000Z
                5,ann@example.com,Moved to Ann,,done,1,2024-03-01T00:00:00.000Z,2024-04-01T00:00:00.000Z
                9,bob@example.com,New,,open,0,2024-05-01T00:00:00.000Z,2024-05-01T00:00:00.000Z

                """#)
            let upsert = try await importer.importItems(
                from: .file(try Self.file("c.csv", changed)), options: ImportOptions(mode: .upsert))
            #expect((upsert.inserted, upsert.updated, upsert.unchanged, upsert.deleted) == (1, 1, 1, 0))
            #expect(try await store.items.count(matching: ItemQuery()) == 4)
            #expect(try await store.items.item(id: Item.ID(rawValue: 5))?.version == 2)
            let replace = try await importer.importItems(
                from: .file(try Self.file("c.csv", changed)), options: ImportOptions(mode: .replace))
            #expect((replace.inserted, replace.updated, replace.unchanged, replace.deleted) == (0, 0, 3, 1))
            #expect(try await Self.export(store, "items", .csv) == changed)
        }
    }

    @Test(arguments: Backend.available)
    func aBadRowLeavesTheStoreAsItWas(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let importer = Importer(store: store)
            _ = try await importer.importUsers(from: .file(try Self.file("u.csv", Self.users)))
            let before = try await Self.export(store, "users", .csv)
            let bad = #"""
                name,email
                New,new@example.com
                Twin,ANN@example.com

                """#
            let path = try Self.file("bad.csv", bad)
            let error = await #expect(throws: TransferError.self) { try await importer.importUsers(from: .file(path)) }
            #expect(error?.description.contains("bad.csv:3:") == true, "\(String(describing: error))")
            #expect(try await Self.export(store, "users", .csv) == before)
            // With --skip-invalid the good row goes in and the bad one is reported.
            let skipped = try await importer.importUsers(from: .file(path), options: ImportOptions(skipInvalid: true))
            #expect((skipped.inserted, skipped.skipped) == (1, 1))
            // A dry run writes nothing.
            let dry = try await importer.importUsers(
                from: .file(try Self.file("d.csv", "name,email\nDry,dry@example.com\n")),
                options: ImportOptions(dryRun: true))
            #expect(dry.inserted == 1)
            #expect(try await store.users.user(email: "dry@example.com") == nil)
        }
    }

    /// A title over the limit in a file is a problem at its FILE:LINE:COLUMN, a reject with
    /// --skip-invalid, and a problem in a dry run: on both backends, before anything is written.
    @Test(arguments: Backend.available)
    func aTooLongTitleIsAPlacedProblem(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let importer = Importer(store: store)
            _ = try await importer.importUsers(from: .file(try Self.file("u.csv", Self.users)))
            let long = String(repeating: "t", count: 501)
            let path = try Self.file("long.csv", "user,title\nann@example.com,fine\nann@example.com,\(long)\n")
            let error = await #expect(throws: TransferError.self) { try await importer.importItems(from: .file(path)) }
            #expect(error?.description.contains("long.csv:3:17") == true, "\(String(describing: error))")
            #expect(error?.description.contains("at most 500 characters") == true)
            let rejects = path + ".rejects.csv"
            let skipped = try await importer.importItems(
                from: .file(path), options: ImportOptions(skipInvalid: true, rejectsPath: rejects))
            #expect((skipped.inserted, skipped.skipped) == (1, 1))
            #expect(try String(contentsOfFile: rejects, encoding: .utf8).contains("at most 500 characters"))
        }
    }
}
