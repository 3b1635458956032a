import Foundation
import ShelfStore
import Testing

@testable import ShelfTransfer

/// UTF-16, Latin-1 and Windows-1252 input, converted to UTF-8 as it is read: the text the
/// readers see, and errors at the line and column of the decoded text.
@Suite struct TextEncodingTests {
    /// Text that needs every UTF-8 length: ASCII, é (2 bytes), € (3), 😀 (4, a surrogate pair
    /// in UTF-16), with CRLF line ends and a quoted field across lines.
    static let wide = "title,notes\r\nCafé 😀,\"a\r\nb €\"\r\n日本 🇫🇷,x\r\n"

    static func utf16(_ text: String, bigEndian: Bool, mark: Bool = false) -> [UInt8] {
        var bytes: [UInt8] = []
        for unit in Array((mark ? "\u{FEFF}" : "").utf16) + Array(text.utf16) {
            bytes += bigEndian ? [UInt8(unit >> 8), UInt8(unit & 0xFF)] : [UInt8(unit & 0xFF), UInt8(unit >> 8)]
        }
        return bytes
    }

    /// A file holding `bytes`, read through a `ByteInput` of `capacity` after `decode(encoding)`.
    private func decodedInput(_ bytes: [UInt8], _ encoding: TextEncoding?, capacity: Int = 7) throws -> ByteInput {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-enc-\(UUID().uuidString)").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        let input = ByteInput(descriptor: open(path, O_RDONLY), name: "in.csv", closes: true, capacity: capacity)
        try input.decode(encoding)
        return input
    }

    /// Every CSV record of `bytes` in `encoding`, as strings.
    private func records(_ bytes: [UInt8], _ encoding: TextEncoding?, capacity: Int = 7) throws -> [[String?]] {
        var reader = try CSVReader(input: try decodedInput(bytes, encoding, capacity: capacity))
        var record = SourceRecord()
        var rows: [[String?]] = [reader.columns.names]
        while try reader.next(into: &record) {
            rows.append(try record.values.map { try $0.flatMap { $0.kind == .null ? nil : try record.string($0) } })
        }
        return rows
    }

    /// The error reading `bytes` in `encoding` gives.
    private func readError(_ bytes: [UInt8], _ encoding: TextEncoding?, capacity: Int = 7) -> TransferError? {
        do {
            _ = try records(bytes, encoding, capacity: capacity)
            return nil
        } catch {
            return error as? TransferError
        }
    }

    /// All the bytes a `TextDecodingSource` gives for `bytes`, reading `chunk` bytes at a time
    /// with a raw buffer of `rawCapacity`.
    private func decodeAll(_ bytes: [UInt8], _ encoding: TextEncoding, rawCapacity: Int, chunk: Int) throws -> [UInt8] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-dec-\(UUID().uuidString)").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        let base = DescriptorSource(descriptor: open(path, O_RDONLY), name: "in", closes: true)
        let source = TextDecodingSource(base: base, encoding: encoding, pending: [], offset: 0, capacity: rawCapacity)
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: chunk)
        while true {
            let read = try buffer.withUnsafeMutableBufferPointer { pointer throws(TransferError) in
                guard let start = pointer.baseAddress else { return 0 }
                return try source.read(into: start, capacity: chunk)
            }
            if read == 0 { break }
            output += buffer[0..<read]
        }
        #expect(source.problem == nil)
        #expect(source.consumed == bytes.count)
        return output
    }

    private static let expectedWide: [[String?]] = [["title", "notes"], ["Café 😀", "a\r\nb €"], ["日本 🇫🇷", "x"]]

    @Test(arguments: [false, true], [false, true])
    func utf16IsReadWithOrWithoutAByteOrderMark(_ bigEndian: Bool, _ mark: Bool) throws {
        let bytes = Self.utf16(Self.wide, bigEndian: bigEndian, mark: mark)
        // Detected from the mark or the zero bytes, and named.
        #expect(try records(bytes, nil) == Self.expectedWide)
        #expect(try records(bytes, bigEndian ? .utf16be : .utf16le) == Self.expectedWide)
        #expect(try records(bytes, nil, capacity: 1 << 18) == Self.expectedWide)
    }

    @Test(arguments: [TextEncoding.utf16le, .utf16be, .latin1, .windows1252])
    func everyChunkingGivesTheSameUTF8(_ encoding: TextEncoding) throws {
        let text: String
        let bytes: [UInt8]
        switch encoding {
        case .utf16le, .utf16be:
            text = String(repeating: "aé€😀\r\n", count: 40)
            bytes = Self.utf16(text, bigEndian: encoding == .utf16be)
        case .latin1:
            text = String(repeating: "aéÿ\u{80}\n", count: 40)
            bytes = Array(text.unicodeScalars.map { UInt8($0.value) })
        default:
            text = String(repeating: "a€“é”\n", count: 40)
            bytes = Array(repeating: [0x61, 0x80, 0x93, 0xE9, 0x94, 0x0A], count: 40).flatMap { $0 }
        }
        for rawCapacity in [8, 9, 1 << 16] {
            for chunk in [1, 2, 3, 5, 4096] {
                let decoded = try decodeAll(bytes, encoding, rawCapacity: rawCapacity, chunk: chunk)
                #expect(decoded == Array(text.utf8), "raw \(rawCapacity), chunk \(chunk)")
            }
        }
    }

    @Test func latin1MapsEveryByteToTheCharacterWithItsCode() throws {
        let bytes = Array(UInt8(1)...UInt8(255))
        let decoded = try decodeAll(bytes, .latin1, rawCapacity: 1 << 16, chunk: 4096)
        let expected = String(String.UnicodeScalarView(bytes.compactMap { Unicode.Scalar(UInt32($0)) }))
        #expect(decoded == Array(expected.utf8))
    }

    @Test func windows1252HasTheEuroAndSmartQuotes() throws {
        // "title,notes\n" then “Smart” quotes, ’, –, € and é as Excel on Windows writes them.
        let bytes =
            Array("title,notes\n".utf8) + [0x93, 0x53, 0x6D, 0x61, 0x72, 0x74, 0x94, 0x2C, 0x92, 0x96, 0x80, 0xE9]
        #expect(try records(bytes, .windows1252) == [["title", "notes"], ["“Smart”", "’–€é"]])
        // Latin-1 reads the same bytes as C1 controls.
        #expect(try records(bytes, .latin1)[1][1] == "\u{92}\u{96}\u{80}é")
    }

    @Test(arguments: [0x81, 0x8D, 0x8F, 0x90, 0x9D] as [UInt8])
    func windows1252RefusesItsUndefinedBytesWhereTheyAre(_ byte: UInt8) throws {
        let bytes = Array("title\nab\n€x".utf8.prefix(9)) + [0x80, 0x61, byte, 0x62]
        // Line 3: "€a" then the byte, column 3.
        let error = try #require(readError(bytes, .windows1252))
        #expect(error.file == "in.csv")
        #expect(error.position == SourcePosition(line: 3, column: 3), "\(error)")
        let hex = String(byte, radix: 16, uppercase: true)
        #expect(error.reason.contains("byte 0x\(hex) (at byte offset 11) is not a character in Windows-1252"))
        #expect(error.reason.contains("--encoding latin1"))
        // Latin-1 reads it.
        #expect(try records(bytes, .latin1).count == 3)
    }

    @Test(arguments: [false, true])
    func utf16ErrorsAreAtTheLineAndColumnOfTheText(_ bigEndian: Bool) throws {
        let head = Self.utf16("title\r\nab😀", bigEndian: bigEndian)
        let unit = { (value: UInt16) -> [UInt8] in
            bigEndian ? [UInt8(value >> 8), UInt8(value & 0xFF)] : [UInt8(value & 0xFF), UInt8(value >> 8)]
        }
        let cases: [([UInt8], String)] = [
            (
                head + unit(0xD83D) + unit(0x41),
                "0xD83D (at byte offset 22) is a high surrogate with no low one after it"
            ),
            (head + unit(0xDE00), "0xDE00 (at byte offset 22) is a low surrogate with no high one before it"),
            (head + unit(0xD83D), "0xD83D (at byte offset 22) is a high surrogate cut short by the end of the file"),
            (head + [0x41], "the file ends in the middle of a UTF-16 character (at byte offset 22"),
            (head + unit(0), "a NUL character (at byte offset 22 of this UTF-16"),
        ]
        for (bytes, reason) in cases {
            for capacity in [7, 1 << 18] {
                let error = try #require(readError(bytes, bigEndian ? .utf16be : .utf16le, capacity: capacity))
                // Line 2: "ab😀" is three characters, the bad one the fourth.
                #expect(error.position == SourcePosition(line: 2, column: 4), "\(error)")
                #expect(error.reason.contains(reason), "\(error)")
            }
        }
        // With a byte order mark, offsets count it.
        let marked = Self.utf16("title\nx", bigEndian: bigEndian, mark: true) + unit(0xDC00)
        let error = try #require(readError(marked, nil))
        #expect(error.position == SourcePosition(line: 2, column: 2))
        #expect(error.reason.contains("at byte offset 16"), "\(error)")
    }

    @Test func aNulStaysAnErrorInEveryEncoding() throws {
        for encoding in [TextEncoding.latin1, .windows1252] {
            let error = try #require(readError(Array("title\nab".utf8) + [0], encoding))
            #expect(error.position == SourcePosition(line: 2, column: 3))
            #expect(error.reason.contains("a NUL character (at byte offset 8"), "\(error)")
        }
    }

    @Test func aByteOrderMarkThatContradictsTheEncodingIsRefused() throws {
        let utf16 = Self.utf16("title\nx\n", bigEndian: false, mark: true)
        let error = try #require(readError(utf16, .utf16be))
        #expect(error.position == SourcePosition(line: 1, column: 1))
        #expect(error.reason.contains("UTF-16LE byte order mark"))
        #expect(error.reason.contains("name utf-16le"))
        let latin = try #require(readError([0xEF, 0xBB, 0xBF] + Array("title\nx\n".utf8), .latin1))
        #expect(latin.reason.contains("UTF-8 byte order mark"))
        // Named UTF-8, UTF-16 is refused as before, with the option that reads it.
        let named = try #require(readError(utf16, .utf8))
        #expect(named.reason.contains("name utf-16le"))
        let unmarked = try #require(readError(Self.utf16("title\nx\n", bigEndian: false), .utf8))
        #expect(unmarked.reason.contains("import it with --encoding utf-16le"), "\(unmarked)")
        // Without a name, a UTF-8 file with a mark reads as ever.
        #expect(try records([0xEF, 0xBB, 0xBF] + Array("title\nx\n".utf8), nil) == [["title"], ["x"]])
    }

    @Test func onlyTwoASCIICharactersWithZeroBytesMakeUTF16() {
        #expect(TextEncoding.detect(Array("ti".utf8)) == .utf8)
        #expect(TextEncoding.detect([0x74, 0, 0x69, 0]) == .utf16le)
        #expect(TextEncoding.detect([0, 0x74, 0, 0x69]) == .utf16be)
        #expect(TextEncoding.detect([0x74, 0, 0, 0]) == .utf8)  // UTF-32LE: refused later
        #expect(TextEncoding.detect([0xFF, 0xFE, 0, 0]) == .utf8)
        #expect(TextEncoding.detect([0x74, 0, 0xE9, 0]) == .utf8)
        // Too short to tell: refused as UTF-16 with what to do, as before.
        let error = readError([0x74, 0, 0x0A], nil)
        #expect(error?.reason.contains("this is UTF-16LE text") == true)
    }

    @Test func namesAreReadAsPeopleWriteThem() {
        #expect(TextEncoding(name: "UTF-16LE") == .utf16le)
        #expect(TextEncoding(name: "utf16be") == .utf16be)
        #expect(TextEncoding(name: "ISO-8859-1") == .latin1)
        #expect(TextEncoding(name: "cp1252") == .windows1252)
        #expect(TextEncoding(name: "utf8") == .utf8)
        #expect(TextEncoding(name: "ebcdic") == nil)
    }

    @Test func progressCountsRawBytes() throws {
        let bytes = Self.utf16(Self.wide, bigEndian: false, mark: true)
        let input = try decodedInput(bytes, nil)
        var reader = try CSVReader(input: input)
        var record = SourceRecord()
        while try reader.next(into: &record) {}
        #expect(input.rawBytesRead == bytes.count)
        #expect(input.size == bytes.count)
        #expect(input.offset == Self.wide.utf8.count)
    }

    @Test(arguments: [TextEncoding.utf16le, .utf16be, .windows1252])
    func theImporterReadsEachEncodingIntoTheStore(_ encoding: TextEncoding) async throws {
        let scratch = try Scratch()
        let text = "title,user,notes\r\n“Quoted” €5,ann@example.com,café\r\n"
        let bytes: [UInt8] =
            switch encoding {
            case .windows1252:
                Array("title,user,notes\r\n".utf8) + [0x93] + Array("Quoted".utf8) + [0x94, 0x20, 0x80]
                    + Array("5,ann@example.com,caf".utf8) + [0xE9, 0x0D, 0x0A]
            default: Self.utf16(text, bigEndian: encoding == .utf16be, mark: true)
            }
        let path = try scratch.file("items.csv", Data(bytes))
        let store = try await makeStore()
        let options = ImportOptions(encoding: encoding == .windows1252 ? encoding : nil)
        let summary = try await Importer(store: store).importItems(from: .file(path), options: options)
        #expect(summary.inserted == 1)
        let items = try await store.items.items(matching: ItemQuery())
        #expect(items.map(\.title) == ["“Quoted” €5"])
        #expect(items.map(\.notes) == ["café"])
    }

    @Test func utf16JSONIsSniffedAfterDecoding() async throws {
        let scratch = try Scratch()
        let text = "{\"title\": \"x 😀\", \"user\": \"ann@example.com\"}\n"
        let path = try scratch.file("items", Data(Self.utf16(text, bigEndian: true)))
        let store = try await makeStore()
        let summary = try await Importer(store: store).importItems(from: .file(path))
        #expect(summary.inserted == 1 && summary.format == .ndjson)
        #expect(try await store.items.items(matching: ItemQuery()).map(\.title) == ["x 😀"])
    }
}
