import Foundation
import Testing

@testable import ShelfTransfer

@Suite struct JSONReaderTests {
    @Test func jsonTestSuite() throws {
        let folder = corpora.appendingPathComponent("JSONTestSuite/test_parsing")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        var counts = (accepted: 0, rejected: 0, either: 0)
        for name in names {
            let bytes = try Data(contentsOf: folder.appendingPathComponent(name))
            var reader = JSONReader(input: try input(Array(bytes), name: name), lines: false)
            let accepted = (try? reader.readDocument()) != nil
            switch name.first {
            case "y":
                #expect(accepted, "\(name) must be accepted")
                counts.accepted += 1
            case "n":
                #expect(!accepted, "\(name) must be rejected")
                counts.rejected += 1
            default:
                counts.either += 1
            }
        }
        #expect(counts.accepted > 90 && counts.rejected > 180)
    }

    private func records(_ text: String, lines: Bool = false) throws -> [[String: String]] {
        var reader = JSONReader(input: try input(Array(text.utf8), name: "t.json"), lines: lines)
        var record = SourceRecord()
        var rows: [[String: String]] = []
        while try reader.next(into: &record) {
            var row: [String: String] = [:]
            for (column, value) in record.values.enumerated() {
                guard let value else { continue }
                row[reader.columns.names[column]] = "\(value.kind):" + record.display(value)
            }
            rows.append(row)
        }
        return rows
    }

    private func error(_ text: String, lines: Bool = false) -> TransferError? {
        do {
            _ = try records(text, lines: lines)
            return nil
        } catch {
            return error as? TransferError
        }
    }

    @Test func arrayOfObjectsWithEveryKind() throws {
        let rows = try records(
            #"[{"a": "x\n\u00e9\ud83d\ude00", "b": 12.5e3, "c": true, "d": null, "e": {"deep": [1, [2]]}}, {}]"#)
        #expect(rows.count == 2)
        #expect(rows[0]["a"] == "text:x\né😀")
        #expect(rows[0]["b"] == "number:12.5e3")
        #expect(rows[0]["c"] == "bool:true")
        #expect(rows[0]["d"] == "null:")
        #expect(rows[0]["e"] == "nested:")
        #expect(rows[1].isEmpty)
    }

    @Test func emptyArrayAndNDJSON() throws {
        #expect(try records(" [ ] \n").isEmpty)
        let rows = try records("{\"a\":\"1\"}\r\n\n{\"a\":\"2\"}", lines: true)
        #expect(rows == [["a": "text:1"], ["a": "text:2"]])
    }

    @Test func errorsHaveLineAndColumn() throws {
        #expect(error("{\"a\":1}")?.reason.contains("does not start with [") == true)
        #expect(error("[{\"a\":1},]")?.position == SourcePosition(line: 1, column: 10))
        #expect(error("[{\"a\":1}\n{\"a\":2}]")?.position == SourcePosition(line: 2, column: 1))
        #expect(error("[{\"a\":\"x}]")?.reason.contains("never closed") == true)
        #expect(error("[{\"a\":01}]")?.reason.contains("leading zero") == true)
        #expect(error("[{\"a\":1,\"a\":2}]")?.reason.contains("twice") == true)
        #expect(error("[{\"a\":\"\\ud800\"}]")?.reason.contains("surrogate") == true)
        #expect(error("[{\"a\":1}] x")?.reason.contains("after the end") == true)
        #expect(error("[{\"a\":1}")?.reason.contains("ends inside the array") == true)
        #expect(error("{\"a\":1} {\"a\":2}", lines: true)?.position == SourcePosition(line: 1, column: 9))
        #expect(error("[{\"a\":\"tab\there\"}]")?.reason.contains("control character") == true)
    }

    @Test func nestingStopsAt64LevelsWithThePlace() throws {
        // The file's array and the record's object are two of the 64 levels.
        func nested(_ levels: Int) -> String {
            String(repeating: "[", count: levels) + String(repeating: "]", count: levels)
        }
        #expect(try records("[{\"a\":\(nested(62))}]") == [["a": "nested:"]])
        #expect(try records("{\"a\":\(nested(63))}", lines: true) == [["a": "nested:"]])
        let tooDeep = error("[{\"a\":\(nested(63))}]")
        #expect(tooDeep?.position == SourcePosition(line: 1, column: 6 + 63))
        #expect(tooDeep?.reason.hasPrefix("values nested deeper than 64 levels") == true)
        // Objects count as arrays do, and an unknown key's value too.
        let objects = String(repeating: "{\"k\":", count: 63) + "1" + String(repeating: "}", count: 63)
        #expect(error("[{\"b\":\(objects)}]")?.reason.hasPrefix("values nested deeper") == true)
        #expect(error("[{\"a\":" + String(repeating: "[", count: 100_000) + "}]") != nil)
        var document = JSONReader(input: try input(Array(nested(64).utf8), name: "d.json"), lines: false)
        #expect(throws: Never.self) { try document.readDocument() }
        var deeper = JSONReader(input: try input(Array(nested(65).utf8), name: "d.json"), lines: false)
        #expect(throws: TransferError.self) { try deeper.readDocument() }
    }
}
