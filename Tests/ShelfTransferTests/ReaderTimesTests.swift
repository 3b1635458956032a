import Foundation
import ShelfStore
import Testing

@testable import ShelfTransfer

/// Times through a whole import and export: what an import accepts, an export writes back
/// identically, at the edges of the range and before the Gregorian reform.
@Suite struct ReaderTimesTests {
    @Test func importExportImportKeepsEdgeTimesExactly() async throws {
        let scratch = try Scratch()
        let times = [
            "9999-12-31T23:59:59.999Z", "0000-01-01T00:00:00.000Z", "1500-01-01T00:00:00.268Z",
            "1582-10-10T12:00:00.001Z", "1969-12-31T23:59:59.999Z",
        ]
        let rows = times.enumerated().map { "t\($0.offset),ann@example.com,\($0.element),\($0.element)" }
        let csv = try scratch.file("in.csv", "title,user,created_at,updated_at\n" + rows.joined(separator: "\n"))
        let store = try await makeStore()
        let summary = try await Importer(store: store).importItems(from: .file(csv))
        #expect(summary.inserted == times.count)
        try await Exporter(store: store).exportItems(format: .csv, to: .file(scratch.path("out.csv")))
        let exported = try scratch.read("out.csv")
        for time in times { #expect(exported.contains(",\(time),\(time)\r\n"), "\(time)") }

        let again = try await makeStore()
        #expect(
            try await Importer(store: again).importItems(from: .file(scratch.path("out.csv"))).inserted == times.count)
        try await Exporter(store: again).exportItems(format: .csv, to: .file(scratch.path("again.csv")))
        #expect(try scratch.read("again.csv") == exported)
    }

    @Test func aTimePastYear9999InUTCIsRefusedWithItsValue() async throws {
        let scratch = try Scratch()
        let csv = try scratch.file(
            "in.csv",
            "title,user,created_at\nok,ann@example.com,2026-01-01T00:00:00Z\nlate,ann@example.com,"
                + "9999-12-31T23:59:59-01:00\n")
        let store = try await makeStore()
        await #expect {
            try await Importer(store: store).importItems(from: .file(csv))
        } throws: { error in
            let text = (error as? TransferError)?.description ?? ""
            return text.contains(":3:")
                && text.contains("field 'created_at', value \"9999-12-31T23:59:59-01:00\"")
                && text.contains("+010000-01-01T00:59:59.000Z")
                && text.contains("0000-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z")
        }
        #expect(try await store.items.items(matching: ItemQuery()).isEmpty)
    }
}
