import Foundation
import Testing

@testable import ShelfTransfer

/// Input an adversary or a wrong export tool would give the readers: NUL bytes, UTF-16,
/// invalid UTF-8, lines cut short, huge and numerous fields, terminal escapes. Every case is
/// an error with the right line and column and a short, printable message; none crashes.
@Suite struct HostileInputTests {
    /// Reads every record of `bytes` in `format` (by default with a 7-byte buffer, so records
    /// straddle refills) and returns the error, or nil when all were read.
    private func readError(
        _ bytes: [UInt8], _ format: TransferFormat, name: String = "in.txt", capacity: Int = 7
    ) -> TransferError? {
        do {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-in-\(UUID().uuidString)")
            try Data(bytes).write(to: path)
            defer { unlink(path.path) }
            let input = ByteInput(descriptor: open(path.path, O_RDONLY), name: name, closes: true, capacity: capacity)
            var record = SourceRecord()
            switch format {
            case .csv, .tsv:
                var reader = try CSVReader(input: input, delimiter: format == .tsv ? .tab : .comma)
                while try reader.next(into: &record) {}
            case .json, .ndjson:
                var reader = JSONReader(input: input, lines: format == .ndjson)
                while try reader.next(into: &record) {}
            }
            return nil
        } catch {
            return error as? TransferError
        }
    }

    private func readError(_ text: String, _ format: TransferFormat) -> TransferError? {
        readError(Array(text.utf8), format)
    }

    /// True when `text` holds nothing a terminal would act on.
    private func isPrintable(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { scalar in
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator: false
            default: true
            }
        }
    }

    // MARK: NUL bytes

    @Test(arguments: [TransferFormat.csv, .json, .ndjson])
    func nulByteIsReportedWhereItIs(_ format: TransferFormat) throws {
        let text =
            switch format {
            case .csv, .tsv: "title\nab\u{0}c\n"
            case .json: "[{\"a\":1},\n{\"a\":\"b\u{0}c\"}]"
            case .ndjson: "{\"a\":1}\n{\"a\":\"b\u{0}c\"}\n"
            }
        let error = try #require(readError(text, format))
        let column = format == .csv ? 3 : 8
        #expect(error.position == SourcePosition(line: 2, column: column))
        let offset = Array(text.utf8).firstIndex(of: 0) ?? -1
        #expect(error.reason.contains("NUL byte (at byte offset \(offset))"), "\(error)")
        #expect(!error.description.contains("byte -"))
    }

    @Test func nulByteInTheHeaderAfterWideCharacters() throws {
        let error = try #require(readError(Array("éé,".utf8) + [0] + Array("x\n1,2\n".utf8), .csv))
        #expect(error.position == SourcePosition(line: 1, column: 4))
        #expect(error.reason.contains("byte offset 5"))
    }

    // MARK: UTF-16 and UTF-32

    @Test(arguments: [
        (String.Encoding.utf16LittleEndian, "UTF-16LE", false), (.utf16BigEndian, "UTF-16BE", false),
        (.utf16LittleEndian, "UTF-16LE", true), (.utf16BigEndian, "UTF-16BE", true),
        (.utf32LittleEndian, "UTF-32LE", false), (.utf32BigEndian, "UTF-32BE", false),
        (.utf32LittleEndian, "UTF-32LE", true), (.utf32BigEndian, "UTF-32BE", true),
    ])
    func wideEncodingsAreNamedWithTheirConversion(_ encoding: String.Encoding, _ name: String, _ bom: Bool) throws {
        for (text, format) in [
            ("title,notes\nx,y\n", TransferFormat.csv), ("[{\"a\":1}]", .json), ("{\"a\":1}\n", .ndjson),
        ] {
            var bytes = Array(try #require(text.data(using: encoding)))
            if bom { bytes = Array(try #require("\u{FEFF}".data(using: encoding))) + bytes }
            let error = try #require(readError(bytes, format, name: "list.csv"), "\(name) \(format)")
            #expect(error.position == SourcePosition(line: 1, column: 1))
            #expect(error.reason.contains("this is \(name) text, not UTF-8"), "\(error)")
            #expect(error.reason.contains("iconv -f \(name) -t UTF-8 < list.csv > list.csv.utf8"), "\(error)")
        }
    }

    @Test func theImportReadsAUTF16FileWithAByteOrderMarkWithoutBeingTold() async throws {
        let scratch = try Scratch()
        var bytes: [UInt8] = [0xFF, 0xFE]
        for unit in "title,user\nx,ann@example.com\n".utf16 { bytes += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        let path = try scratch.file("items.txt", Data(bytes))
        let store = try await makeStore()
        let summary = try await Importer(store: store).importItems(from: .file(path))
        #expect(summary.inserted == 1 && summary.format == .csv)
    }

    @Test(arguments: [
        (Array("SQLite format 3\u{0}".utf8) + [0x10, 0x00], "a SQLite database"),
        ([0x50, 0x4B, 0x03, 0x04, 0x14, 0x00], "a ZIP or Office file"), ([0xD0, 0xCF, 0x11, 0xE0, 0xA1], "Office"),
    ])
    func binaryFilesPickedByMistakeAreNamed(_ bytes: [UInt8], _ kind: String) throws {
        for format in TransferFormat.allCases {
            let error = try #require(readError(bytes + Array(repeating: 0, count: 20), format, capacity: 64))
            #expect(error.position == SourcePosition(line: 1, column: 1))
            #expect(error.reason.contains(kind), "\(error)")
        }
    }

    // MARK: Invalid UTF-8

    /// A bad sequence after "ab" on line 2, as CSV (unquoted and quoted), JSON and NDJSON: the
    /// error is at its first byte, 2:3, whatever the kind.
    @Test(
        arguments: [
            [0x80], [0xBF, 0x41], [0xC0, 0xAF], [0xC1, 0xBF], [0xC3, 0x41], [0xC3], [0xE0, 0x80, 0x80],
            [0xED, 0xA0, 0x80], [0xE2, 0x82], [0xE2, 0x82, 0x0A], [0xF0, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80],
            [0xF5, 0x80, 0x80, 0x80], [0xFE], [0xFF], [0xF0, 0x9F, 0x98],
        ] as [[UInt8]])
    func invalidUTF8IsAnErrorAtItsFirstByte(_ sequence: [UInt8]) throws {
        let cases: [([UInt8], [UInt8], TransferFormat)] = [
            (Array("title\nab".utf8), Array("\n".utf8), .csv),
            (Array("title\n\"ab".utf8), Array("\"\n".utf8), .csv),
            (Array("[{\"t\":1},\n{\"ab".utf8), Array("\":1}]".utf8), .json),
            (Array("{\"t\":1}\n{\"t\":\"ab".utf8), Array("\"}\n".utf8), .ndjson),
        ]
        for (before, after, format) in cases {
            let error = try #require(readError(before + sequence + after, format), "\(sequence) \(format)")
            let column = before.count - (before.lastIndex(of: 0x0A) ?? 0)
            #expect(error.position == SourcePosition(line: 2, column: column), "\(sequence) \(format): \(error)")
            #expect(error.reason.contains("not UTF-8"), "\(error)")
            #expect(error.reason.contains("byte offset \(before.count)"), "\(error)")
        }
    }

    @Test func validUTF8OfEveryLengthIsRead() throws {
        let text = "t\n\u{7F}\u{80}\u{7FF}\u{800}\u{D7FF}\u{E000}\u{FFFD}\u{FFFF}\u{10000}\u{10FFFF}é😀\n"
        #expect(
            try csvRecords(text) == [
                ["\u{7F}\u{80}\u{7FF}\u{800}\u{D7FF}\u{E000}\u{FFFD}\u{FFFF}\u{10000}\u{10FFFF}é😀"]
            ])
    }

    @Test func columnsAfterWideCharacters() throws {
        let error = try #require(readError(Array("t\néé😀".utf8) + [0xFF], .csv))
        #expect(error.position == SourcePosition(line: 2, column: 4))
    }

    // MARK: NDJSON is line-delimited

    @Test func anObjectCutShortIsAnErrorOnItsOwnLine() throws {
        let lines = "{\"a\":1}\n{\"a\":2}\n"
        for (third, column) in [
            ("{\"a\":3,", 8), ("{\"a\":", 6), ("{\"a\"", 5), ("{", 2), ("{\"a\":[1,", 9), ("{\"a\":3 ", 8),
        ] {
            let error = try #require(readError(lines + third + "\n{\"a\":4}\n", .ndjson), "\(third)")
            #expect(error.position == SourcePosition(line: 3, column: column), "\(third): \(error)")
            #expect(error.reason.contains("ends inside the object that starts at 3:1"), "\(error)")
        }
        let string = try #require(readError(lines + "{\"a\":\"x\n\"}\n", .ndjson))
        #expect(string.position == SourcePosition(line: 3, column: 8))
        #expect(string.reason.contains("this line ends inside a string"))
    }

    @Test func arrayJSONStillSpansLines() throws {
        #expect(readError("[{\n\"a\"\n:\n1\n}\n]", .json) == nil)
        let error = try #require(readError("[{\"a\":1}\n,\n{\"a\":}]", .json))
        #expect(error.position == SourcePosition(line: 3, column: 6))
        let colon = try #require(readError("[{\"a\"\n\n1}]", .json))
        #expect(colon.position == SourcePosition(line: 3, column: 1))
    }

    @Test func aByteReadBeforeALineEndIsOnItsLine() throws {
        // The error is at the line end itself, on the line it ends, not at 4:0 or 4:1.
        let error = try #require(readError("[{\"a\":1}\n,{\"a\"\n\n]", .json))
        #expect(error.position == SourcePosition(line: 4, column: 1))
        let control = try #require(readError("[{\"a\":\"x\n\"}]", .json))
        #expect(control.position == SourcePosition(line: 1, column: 9))
    }

    // MARK: Size

    @Test func aHundredThousandColumnHeaderGivesAShortError() throws {
        let header = (0..<100_000).map { "column\($0)" }.joined(separator: ",")
        let error = try #require(readError(header + "\n1\n", .csv))
        #expect(error.description.count < 300, "\(error.description.count) characters")
        #expect(error.reason.contains("more than 1000 fields"))
    }

    @Test func aRowOfTheWrongWidthListsAFewColumns() throws {
        let header = (0..<900).map { "column\($0)" }.joined(separator: ",")
        var reader = try CSVReader(input: try input(Array((header + "\n1\n").utf8)))
        var record = SourceRecord()
        #expect(try reader.next(into: &record))
        let problem = try #require(reader.fieldCountProblem(record))
        #expect(problem.description.count < 400, "\(problem.description)")
        #expect(problem.reason.contains("column0, column1"))
        #expect(problem.reason.contains("(900 in all)"))
    }

    @Test func tooManyDistinctKeysIsAnError() throws {
        let keys = (0...TransferFormat.maximumColumns).map { "\"k\($0)\"" }
        let line = "{" + keys.map { $0 + ":1" }.joined(separator: ",") + "}"
        let error = try #require(readError("{}\n" + line, .ndjson))
        let column = try #require(line.range(of: keys.last ?? "")).lowerBound.utf16Offset(in: line) + 1
        #expect(error.position == SourcePosition(line: 2, column: column))
        #expect(error.reason.contains("more than 1000 distinct keys"))
    }

    @Test func echoedValuesAndNamesAreCut() throws {
        let huge = String(repeating: "x", count: 1 << 20)
        let error = TransferError(
            file: "f.csv", position: .init(line: 1, column: 1), field: huge, value: huge, reason: "r")
        #expect(error.description.count < 250)
        #expect(error.description.contains(String(repeating: "x", count: 80) + "…"))
        let long = TransferError(
            file: "f.csv", position: nil, reason: String(repeating: "y", count: 10_000) + " do this")
        #expect(long.description.count < 700)
        #expect(long.description.hasSuffix("y do this"))
    }

    @Test func aHugeDuplicateColumnNameIsCut() throws {
        let name = String(repeating: "n", count: 500_000)
        let error = try #require(readError("\(name),\(name)\n", .csv))
        #expect(error.description.count < 300)
    }

    // MARK: Terminal safety

    @Test func messagesCarryNoControlCharacters() throws {
        let hostile = "\u{1B}]52;c;aGk=\u{07}\u{1B}[2J\u{202E}evil\u{2028}\u{2029}\u{85}\u{9B}\u{200F}\u{2066}"
        let csv = try #require(readError("\(hostile),\(hostile)\n", .csv))
        #expect(csv.reason.contains("twice"))
        #expect(isPrintable(csv.description), "\(csv.description.debugDescription)")
        #expect(csv.description.contains("\\u{1B}]52;c;aGk=\\u{7}"))
        #expect(csv.description.contains("\\u{202E}evil\\u{2028}"))

        let escaped = #"{"\u001b]0;title\u0007":1,"\u001b]0;title\u0007":2}"#
        let json = try #require(readError(escaped, .ndjson))
        #expect(json.reason.contains("twice"))
        #expect(isPrintable(json.description), "\(json.description.debugDescription)")

        let error = TransferError(
            file: "a\u{1B}[31m.csv", position: nil, field: hostile, value: hostile, reason: "bad \u{1B}[0m")
        #expect(isPrintable(error.description), "\(error.description.debugDescription)")
    }

    // MARK: ByteInput

    @Test func aLoneCarriageReturnEndsALine() throws {
        // Old Mac spreadsheets end CSV lines with CR alone; positions count those lines.
        let error = try #require(readError("title,user\rok,ann\r\"open,x\r", .csv))
        #expect(error.position == SourcePosition(line: 3, column: 1))
        let crlf = try #require(readError("title\r\nok\r\n\r\nab\u{0}\r\n", .csv))
        #expect(crlf.position == SourcePosition(line: 4, column: 3))
        let mixed = try #require(readError("title\r\rx\ny\rzz\u{0}", .csv))
        #expect(mixed.position == SourcePosition(line: 5, column: 3))
        let ndjson = try #require(readError("{\"a\":1}\r\n{\"a\":2,\r\n{\"a\":3}\r\n", .ndjson))
        #expect(ndjson.position == SourcePosition(line: 2, column: 9))
    }

    @Test func aByteOrderMarkIsNotAColumn() throws {
        #expect(readError("\u{FEFF}a,a\n", .csv)?.position == SourcePosition(line: 1, column: 3))
        #expect(readError("\u{FEFF}{\"a\":1,}", .ndjson)?.position == SourcePosition(line: 1, column: 8))
    }

    @Test func peekingPastASmallBufferLosesNothing() throws {
        let bytes = Array("title\none\ntwo\n".utf8)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-peek-\(UUID().uuidString)").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        let input = ByteInput(descriptor: open(path, O_RDONLY), name: "p", closes: true, capacity: 2)
        #expect(try input.peekPrefix(64) == Array(bytes.prefix(2)))
        var read: [UInt8] = []
        while let byte = try input.next() { read.append(byte) }
        #expect(read == bytes)
    }
}
