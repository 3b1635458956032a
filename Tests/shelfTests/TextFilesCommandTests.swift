import Foundation
import Testing

/// `shelf import` and `shelf export` with the files people really have: TSV, `;`-separated
/// CSV, UTF-16, Latin-1 and Windows-1252, through the real binary.
@Suite struct TextFilesCommandTests {
    let shelf: ShelfProcess

    init() throws {
        shelf = try ShelfProcess()
    }

    private func run(_ arguments: String..., input: String? = nil) async throws -> ShelfProcess.Result {
        try await shelf.run(arguments + ["--db", shelf.databasePath], input: input)
    }

    private func file(_ name: String, _ bytes: [UInt8]) throws -> String {
        let path = shelf.folder.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    private func file(_ name: String, _ text: String) throws -> String {
        try file(name, Array(text.utf8))
    }

    private func read(_ path: String) throws -> String {
        try String(contentsOfFile: path, encoding: .utf8)
    }

    private func seed() async throws {
        let users = try file("users.csv", "name,email\nAnn,ann@example.com\n\"Bob, Jr\",bob@example.com\n")
        #expect(try await run("import", "users", users, "--quiet").status == 0)
        let items = try file(
            "items.ndjson",
            """
            {"user": "ann@example.com", "title": "Tab\\there", "notes": "two\\nlines; \\"quoted\\"", "priority": 2}
            {"user": "bob@example.com", "title": "Fix bike; today", "status": "done"}
            {"user": "ann@example.com", "title": " padded ", "notes": ""}
            """)
        let result = try await run("import", "items", items, "--quiet")
        #expect(result.status == 0, "\(result.error)")
    }

    @Test func tsvAndSemicolonExportImportExportIsByteIdentical() async throws {
        defer { shelf.cleanUp() }
        try await seed()
        for (name, options) in [("tsv", ["-o", "out.tsv"]), ("semicolon", ["--delimiter", ";", "-o", "out.txt"])] {
            let folder = shelf.folder.path + "/"
            let paths = ["users", "items"].map { folder + name + "-" + $0 + "-" + (options.last ?? "") }
            let again = ["users", "items"].map { folder + name + "-again-" + $0 + "-" + (options.last ?? "") }
            for (table, path) in zip(["users", "items"], paths) {
                let exported = try await shelf.run(
                    ["export", table, "--db", shelf.databasePath] + options.dropLast() + [path])
                #expect(exported.status == 0, "\(exported.error)")
                #expect(exported.error.contains("(\(name == "tsv" ? "tsv" : "csv"))"), "\(exported.error)")
            }
            let items = try read(paths[1])
            if name == "tsv" {
                #expect(items.hasPrefix("id\tuser\ttitle\tnotes\tstatus\tpriority\tcreated_at\tupdated_at\r\n"))
                #expect(items.contains("\t\"Tab\there\"\t\"two\nlines; \"\"quoted\"\"\"\t"))
            } else {
                #expect(items.hasPrefix("id;user;title;notes;status;priority;created_at;updated_at\r\n"))
                #expect(items.contains(";\"Fix bike; today\";"))
            }
            let copy = shelf.folder.appendingPathComponent("copy-\(name).sqlite").path
            let delimiter = name == "tsv" ? [] : ["--delimiter", ";"]
            for (table, path) in zip(["users", "items"], paths) {
                let imported = try await shelf.run(["import", table, path, "--db", copy] + delimiter)
                #expect(imported.status == 0, "\(imported.error)")
            }
            for (index, table) in ["users", "items"].enumerated() {
                let exported = try await shelf.run(
                    ["export", table, "--db", copy] + options.dropLast() + [again[index]])
                #expect(exported.status == 0)
                #expect(try read(again[index]) == read(paths[index]), "\(name) \(table)")
            }
        }
        // Through pipes: --format tsv out, the tab-separated header sniffed in.
        let tsv = try await run("export", "items", "--format", "tsv")
        let copy = shelf.folder.appendingPathComponent("piped.sqlite").path
        let users = try await run("export", "users", "--delimiter", "tab")
        #expect(try await shelf.run(["import", "users", "-", "--db", copy], input: users.output).status == 0)
        let imported = try await shelf.run(["import", "items", "-", "--db", copy], input: tsv.output)
        #expect(imported.error.contains("from stdin (tsv)"), "\(imported.error)")
        #expect(try await shelf.run(["export", "items", "--format", "tsv", "--db", copy]).output == tsv.output)
    }

    @Test func badDelimitersAreRefusedBeforeAnythingIsDone() async throws {
        defer { shelf.cleanUp() }
        try await seed()
        let items = try file("items.csv", "title,user\nx,ann@example.com\n")
        let cases: [([String], String)] = [
            (["import", "items", items, "--delimiter", ";;"], "a delimiter is one byte"),
            (["import", "items", items, "--delimiter", "\""], "a quote cannot separate fields"),
            (["import", "items", items, "--delimiter", "\n"], "it ends rows"),
            (["import", "items", items, "--format", "json", "--delimiter", ";"], "applies to CSV and TSV"),
            (["import", "items", items, "--format", "tsv", "--delimiter", ";"], "TSV is tab-separated"),
            (["export", "items", "--delimiter", "€"], "a delimiter is one byte"),
            (["export", "items", "--format", "ndjson", "--delimiter", "tab"], "applies to CSV and TSV"),
            (["import", "items", items, "--encoding", "ebcdic"], "Shelf reads utf-8, utf-16le"),
        ]
        for (arguments, message) in cases {
            let result = try await shelf.run(arguments + ["--db", shelf.databasePath])
            #expect(result.status != 0, "\(arguments)")
            #expect(result.error.contains(message), "\(arguments): \(result.error)")
        }
        let dash = shelf.folder.appendingPathComponent("dash.csv").path
        let result = try await run("export", "items", "--delimiter", "-", "-o", dash)
        #expect(result.status != 0 && result.error.contains("times"), "\(result.error)")
        #expect(!FileManager.default.fileExists(atPath: dash))
        #expect(try await run("items", "list").output.split(separator: "\n").count == 3)
    }

    @Test func utf16Latin1AndWindows1252FilesImport() async throws {
        defer { shelf.cleanUp() }
        try await seed()
        var utf16: [UInt8] = [0xFF, 0xFE]
        for unit in "title\tuser\r\nEmoji 😀\tann@example.com\r\n".utf16 {
            utf16 += [UInt8(unit & 0xFF), UInt8(unit >> 8)]
        }
        let wide = try file("excel.tsv", utf16)
        let result = try await run("import", "items", wide)
        #expect(result.status == 0, "\(result.error)")
        #expect(result.error.contains("1 inserted"))

        let legacy = try file(
            "legacy.csv",
            Array("title,user\n".utf8) + [0x93, 0x45, 0x75, 0x72, 0x6F, 0x94, 0x20, 0x80]
                + Array(",bob@example.com\n".utf8))
        let refused = try await run("import", "items", legacy)
        #expect(refused.status == 1)
        #expect(refused.error.contains("\(legacy):2:1: byte 0x93"), "\(refused.error)")
        #expect(refused.error.contains("--encoding windows-1252"))
        let windows = try await run("import", "items", legacy, "--encoding", "windows-1252")
        #expect(windows.status == 0, "\(windows.error)")
        let latin = try file(
            "latin.csv", Array("title,user\n".utf8) + [0x43, 0x61, 0x66, 0xE9] + Array(",bob@example.com\n".utf8))
        #expect(try await run("import", "items", latin, "--encoding", "latin1").status == 0)
        let titles = try await run("export", "items", "--format", "ndjson").output
        #expect(titles.contains("\"title\":\"Emoji 😀\""))
        #expect(titles.contains("\"title\":\"“Euro” €\""))
        #expect(titles.contains("\"title\":\"Café\""))

        let undefined = try file("undefined.csv", Array("title,user\nok,bob@example.com\nab".utf8) + [0x81])
        let failed = try await run("import", "items", undefined, "--encoding", "windows-1252")
        #expect(failed.status == 1)
        #expect(
            failed.error.contains("\(undefined):3:3: byte 0x81 (at byte offset 32) is not a character in Windows-1252"))
        #expect(failed.error.contains("the database is unchanged"))
        #expect(try await run("items", "list").output.split(separator: "\n").count == 6)
    }
}
