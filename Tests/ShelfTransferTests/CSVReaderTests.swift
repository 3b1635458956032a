import Foundation
import Testing

@testable import ShelfTransfer

@Suite struct CSVReaderTests {
    @Test func csvSpectrum() throws {
        let folder = corpora.appendingPathComponent("csv-spectrum")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("csvs").path)
        #expect(names.count == 12)
        for name in names.sorted() {
            let base = (name as NSString).deletingPathExtension
            let csv = try Data(contentsOf: folder.appendingPathComponent("csvs/\(name)"))
            var reader = try CSVReader(input: try input(Array(csv), name: name))
            var record = SourceRecord()
            var rows: [[String: String]] = []
            while try reader.next(into: &record) {
                #expect(reader.fieldCountProblem(record) == nil, "\(name)")
                var row: [String: String] = [:]
                for (column, value) in record.values.enumerated() {
                    row[reader.columns.names[column]] = try value.map { try record.string($0) } ?? ""
                }
                rows.append(row)
            }
            let json = try JSONSerialization.jsonObject(
                with: Data(contentsOf: folder.appendingPathComponent("json/\(base).json")))
            // location_coordinates.json is an object, not an array, and its phone number is not
            // the CSV's (an erratum of csv-spectrum 2.0.0): compare its shape only.
            if base == "location_coordinates" {
                let expected = try #require(json as? [String: String])
                #expect(rows.count == 1)
                #expect(Set(rows[0].keys) == Set(expected.keys))
                #expect(rows[0]["Location Coordinates"] == expected["Location Coordinates"])
                continue
            }
            let expected = try #require(json as? [[String: String]], "\(base)")
            #expect(rows == expected, "\(name)")
        }
    }

    @Test func quotesDistinguishEmptyFromMissing() throws {
        #expect(try csvRecords("a,b,c\n,\"\",x\n") == [[nil, "", "x"]])
    }

    @Test func byteOrderMarkCRLFAndBlankLines() throws {
        let rows = try csvRecords("\u{FEFF}a,b\r\n1,\"two\r\nlines\"\r\n\r\n3,4")
        #expect(rows == [["1", "two\r\nlines"], ["3", "4"]])
    }

    @Test func unicodeAndSpacesAreKept() throws {
        #expect(try csvRecords("a,b\n  café ,\"😀 \"\"x\"\" \"\n") == [["  café ", "😀 \"x\" "]])
    }

    @Test func unbalancedQuoteNamesWhereItOpened() throws {
        let error = try #require(csvError("a,b\n1,2\n3,\"open\n4,5\n"))
        #expect(error.position == SourcePosition(line: 3, column: 3))
        #expect(error.description.hasPrefix("test.csv:3:3: "))
        #expect(error.reason.contains("never closed"))
    }

    @Test func textAfterClosingQuote() throws {
        let error = try #require(csvError("a,b\n\"x\"y,2\n"))
        #expect(error.position == SourcePosition(line: 2, column: 4))
        #expect(error.reason.contains("after the closing quote"))
    }

    @Test func quoteInsideUnquotedFieldIsText() throws {
        // As csv-spectrum's location_coordinates expects (37°36'37.8"N), and as people write inches.
        #expect(try csvRecords("a\nab\"c\n") == [["ab\"c"]])
    }

    @Test func columnsCountCharactersNotBytes() throws {
        let error = try #require(csvError("a,b\néé,\"x\"y\n"))
        #expect(error.position == SourcePosition(line: 2, column: 7))
    }

    @Test func overlongFieldStopsBeforeMemoryGrows() throws {
        let text = "a\n\"" + String(repeating: "x", count: CSVReader.maximumFieldBytes + 10)
        let error = try #require(csvError(text))
        #expect(error.reason.contains("longer than 65536 KiB"))
    }

    @Test func headerProblems() throws {
        #expect(csvError("")?.reason.contains("empty") == true)
        #expect(csvError("a,a\n1,2\n")?.reason.contains("twice") == true)
        #expect(csvError("a,,b\n1,2,3\n")?.reason.contains("no name") == true)
    }

    @Test func invalidUTF8AndNULStopTheReadWhereTheyAre() throws {
        // Both mean the file is not UTF-8 text: the reader says where, and never yields the bytes.
        #expect(csvError("a\nb\u{0}\n")?.position == SourcePosition(line: 2, column: 2))
        var reader = try CSVReader(input: try input(Array("a\n".utf8) + [0x61, 0xFF, 0x0A]))
        var record = SourceRecord()
        #expect {
            try reader.next(into: &record)
        } throws: { error in
            guard let error = error as? TransferError else { return false }
            return error.position == SourcePosition(line: 2, column: 2)
                && error.reason.contains("byte 0xFF (at byte offset 3) is not UTF-8")
        }
    }

    @Test func fieldCountIsARowProblem() throws {
        var reader = try CSVReader(input: try input(Array("a,b\n1\n2,3\n".utf8)))
        var record = SourceRecord()
        #expect(try reader.next(into: &record))
        let problem = try #require(reader.fieldCountProblem(record))
        #expect(problem.position == SourcePosition(line: 2, column: 1))
        #expect(problem.reason.contains("1 field but the header has 2"))
        #expect(try reader.next(into: &record))
        #expect(reader.fieldCountProblem(record) == nil)
    }
}
