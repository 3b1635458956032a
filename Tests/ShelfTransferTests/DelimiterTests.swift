import Foundation
import ShelfStore
import Testing

@testable import ShelfTransfer

/// TSV and other one-byte delimiters: parsing `--delimiter`, reading and writing with RFC 4180
/// quoting around the delimiter, the errors and rejects files that name it.
@Suite struct DelimiterTests {
    @Test(
        arguments: [
            (";", 0x3B), ("|", 0x7C), ("\t", 0x09), ("\\t", 0x09), ("tab", 0x09), ("TAB", 0x09),
            (",", 0x2C), (" ", 0x20), ("semicolon", 0x3B),
        ] as [(String, UInt8)])
    func delimitersAreOneByteOrANamedOne(_ text: String, _ byte: UInt8) throws {
        #expect(try Delimiter(text).byte == byte)
    }

    @Test(arguments: [
        ("", "name one"), (";;", "2 bytes cannot separate fields"), ("é", "2 bytes"), ("\"", "it quotes them"),
        ("\n", "it ends rows"), ("\r", "it ends rows"), ("a", "letters and digits"), ("7", "letters and digits"),
        ("\u{1}", "printable ASCII"),
    ])
    func badDelimitersAreRefusedWithTheReason(_ text: String, _ reason: String) {
        #expect {
            try Delimiter(text)
        } throws: { error in
            let message = (error as? TransferError)?.description ?? ""
            return message.contains("--delimiter") && message.contains(reason)
        }
    }

    @Test func aDelimiterMakesTheFormatAndContradictionsAreRefused() throws {
        let semicolon = try Delimiter(";")
        #expect(try Delimiter.resolve(named: nil, guessed: nil, delimiter: nil) == (nil, nil))
        #expect(try Delimiter.resolve(named: nil, guessed: .tsv, delimiter: nil) == (.tsv, .tab))
        #expect(try Delimiter.resolve(named: nil, guessed: nil, delimiter: .tab) == (.tsv, .tab))
        #expect(try Delimiter.resolve(named: nil, guessed: .tsv, delimiter: semicolon) == (.csv, semicolon))
        #expect(try Delimiter.resolve(named: .csv, guessed: nil, delimiter: semicolon) == (.csv, semicolon))
        #expect(throws: TransferError.self) { try Delimiter.resolve(named: .tsv, guessed: nil, delimiter: semicolon) }
        #expect(throws: TransferError.self) { try Delimiter.resolve(named: .json, guessed: nil, delimiter: semicolon) }
        #expect(throws: TransferError.self) { try Delimiter.resolve(named: nil, guessed: .ndjson, delimiter: .tab) }
        for byte in ["-", ":", ".", "+"] {
            #expect(throws: TransferError.self) {
                try ExportOptions(format: .csv, delimiter: try Delimiter(byte)).checkedDelimiter()
            }
        }
        #expect(throws: TransferError.self) { try ExportOptions(format: .json, delimiter: .tab).checkedDelimiter() }
    }

    @Test func tsvQuotesTabsLineBreaksAndQuotesAndLeavesCommas() throws {
        var bytes: [UInt8] = []
        for value in ["plain", "a\tb", "two\nlines", "say \"hi\"", "a, b", "", " pad"] {
            Encode.csv(value, delimiter: 0x09, into: &bytes)
            bytes.append(0x09)
        }
        let written = String(decoding: bytes, as: UTF8.self)
        #expect(written == "plain\t\"a\tb\"\t\"two\nlines\"\t\"say \"\"hi\"\"\"\ta, b\t\"\"\t\" pad\"\t")
    }

    @Test func tsvIsReadWithQuotedTabsAndLineBreaks() throws {
        let text = "title\tnotes\r\n\"a\tb\"\t\"x\"\"y\"\r\n\"two\nlines\"\t\r\nc, d\t\"\"\n"
        var reader = try CSVReader(input: try input(Array(text.utf8)), delimiter: .tab)
        #expect(reader.columns.names == ["title", "notes"])
        var record = SourceRecord()
        var rows: [[String?]] = []
        while try reader.next(into: &record) {
            rows.append(try record.values.map { try $0.flatMap { $0.kind == .null ? nil : try record.string($0) } })
        }
        #expect(rows == [["a\tb", "x\"y"], ["two\nlines", nil], ["c, d", ""]])
    }

    @Test func theFieldCountErrorNamesTheDelimiter() throws {
        var reader = try CSVReader(input: try input(Array("title;notes\na;b;c\n".utf8)), delimiter: try Delimiter(";"))
        var record = SourceRecord()
        #expect(try reader.next(into: &record))
        let problem = try #require(reader.fieldCountProblem(record))
        #expect(problem.position == SourcePosition(line: 2, column: 1))
        #expect(problem.reason.contains("this row has 3 fields but the header has 2"))
        #expect(problem.reason.contains("a missing or extra ';'"), "\(problem)")
    }

    @Test func aTabSeparatedHeaderIsSniffedAsTSV() {
        #expect(TransferFormat.sniff(Array("title\tuser\nx\ty\n".utf8)) == .tsv)
        #expect(TransferFormat.sniff(Array("title,user\nx\ty\n".utf8)) == .csv)
        #expect(TransferFormat.sniff(Array("title\n".utf8)) == .csv)
        #expect(TransferFormat(fileName: "Items.TSV") == .tsv)
    }

    /// Exports in `;`-separated CSV, imports that, and exports again: the same bytes.
    /// `_` is in the header's names (`created_at`): they are quoted then (found by a hostile tester).
    @Test(arguments: [";", "_", "|"])
    func exportImportExportIsByteIdentical(delimiter: String) async throws {
        let scratch = try Scratch()
        let source = try await makeStore()
        var items: [NewItem] = []
        for (index, title) in RoundTripTests.titles.enumerated() {
            items.append(
                NewItem(
                    userID: User.ID(Int64(index % 2 + 1)), title: title + "\(delimiter) more",
                    notes: RoundTripTests.notes[index % RoundTripTests.notes.count], priority: index % 4))
        }
        try await source.items.insert(contentsOf: items)
        let options = ExportOptions(format: .csv, delimiter: try Delimiter(delimiter))
        try await Exporter(store: source).exportItems(to: .file(scratch.path("one.txt")), options: options)
        let first = try scratch.read("one.txt")
        let header = ["id", "user", "title", "notes", "status", "priority", "created_at", "updated_at"]
            .map { $0.contains(delimiter) ? "\"\($0)\"" : $0 }.joined(separator: delimiter)
        #expect(first.hasPrefix(header + "\r\n"))
        #expect(first.contains("\"plain\(delimiter) more\""))

        let target = try await makeStore()
        let summary = try await Importer(store: target).importItems(
            from: .file(scratch.path("one.txt")), options: ImportOptions(delimiter: try Delimiter(delimiter)))
        #expect(summary.inserted == items.count && summary.format == .csv)
        try await Exporter(store: target).exportItems(to: .file(scratch.path("two.txt")), options: options)
        #expect(try scratch.read("two.txt") == first)
    }

    @Test func theRejectsFileOfATSVImportIsTSV() async throws {
        let scratch = try Scratch()
        let path = try scratch.file(
            "items.tsv", "title\tuser\tpriority\nok\tann@example.com\t1\n\"bad\tone\"\tann@example.com\t9\n")
        let store = try await makeStore()
        let summary = try await Importer(store: store).importItems(
            from: .file(path), options: ImportOptions(skipInvalid: true, rejectsPath: scratch.path("rejects.tsv")))
        #expect(summary.inserted == 1 && summary.skipped == 1 && summary.format == .tsv)
        let rejects = try scratch.read("rejects.tsv")
        #expect(rejects.hasPrefix("title\tuser\tpriority\terror\r\n\"bad\tone\"\tann@example.com\t9\t"), "\(rejects)")
        // The header check works with tabs too.
        let unknown = try scratch.file("unknown.tsv", "title\tuser\tcolour\nx\tann@example.com\tred\n")
        await #expect {
            try await Importer(store: store).importItems(from: .file(unknown))
        } throws: { error in
            (error as? TransferError)?.description.hasPrefix("\(unknown):1:12: field 'colour'") == true
        }
    }

    @Test func theHeaderShowsTheDelimiterWhenTheNameIsWrong() async throws {
        #expect(Delimiter.sniff(Array("title;user\n".utf8), expected: .comma) == (try Delimiter(";")))
        #expect(Delimiter.sniff(Array("\r\ntitle|user".utf8), expected: .comma) == (try Delimiter("|")))
        #expect(Delimiter.sniff(Array("title\tuser;x\n".utf8), expected: .comma) == .tab)
        #expect(Delimiter.sniff(Array("title,user\n".utf8), expected: .tab) == .comma)
        #expect(Delimiter.sniff(Array("title,user;x\n".utf8), expected: .comma) == nil)
        #expect(Delimiter.sniff(Array("title\nx;y\n".utf8), expected: .comma) == nil)

        let scratch = try Scratch()
        let store = try await makeStore()
        let importer = Importer(store: store)
        let cases: [(String, String, TransferFormat)] = [
            ("excel.csv", "title;user;notes\n\"a;b\";ann@example.com;1,5\n", .csv),
            ("tabs.csv", "title\tuser\na\tann@example.com\n", .tsv),
            ("commas.tsv", "title,user\na,ann@example.com\n", .csv),
        ]
        for (name, text, format) in cases {
            let summary = try await importer.importItems(from: .file(try scratch.file(name, text)))
            #expect(summary.inserted == 1 && summary.format == format, "\(name)")
        }
        #expect(try await store.items.items(matching: ItemQuery()).map(\.notes).contains("1,5"))
        // A format named is taken at its word.
        let named = try scratch.file("named.csv", "title;user\na;ann@example.com\n")
        await #expect {
            try await importer.importItems(from: .file(named), options: ImportOptions(format: .csv))
        } throws: { error in
            let reason = (error as? TransferError)?.reason ?? ""
            return reason.contains("the header has no 'title' column")
                && reason.contains("it looks separated by ';': pass --delimiter ';'")
        }
    }
}
