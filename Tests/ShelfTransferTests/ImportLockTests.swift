import Foundation
import ShelfSQLiteBackend
import ShelfStore
import Testing

@testable import ShelfTransfer

/// An import reads and checks its input holding no lock, so other writers go on meanwhile;
/// cancelling it leaves the store as it was; problems keep their input order whichever step
/// found them; messages stay short.
@Suite struct ImportLockTests {
    let scratch: Scratch
    let store: Store

    init() async throws {
        scratch = try Scratch()
        store = try await makeStore()
    }

    /// `count` item rows (a CSV body) numbered from `first`.
    private func rows(_ first: Int, _ count: Int) -> Data {
        var text = ""
        for number in first..<(first + count) { text += "Item \(number),ann@example.com\n" }
        return Data(text.utf8)
    }

    /// An import of items from a FIFO, started; returns once it has read and checked 4,096
    /// rows and waits for more input, with the FIFO's write end.
    private func startPausedImport(
        _ fifo: String
    ) async throws -> (task: Task<ImportSummary, any Error>, descriptor: Int32) {
        #expect(mkfifo(fifo, 0o600) == 0)
        let (reached, signal) = AsyncStream<Void>.makeStream()
        let importer = Importer(store: store)
        let task = Task {
            try await importer.importItems(from: .file(fifo)) { progress in
                if progress.rows >= 4096 { signal.yield() }
            }
        }
        let descriptor = await blocking { open(fifo, O_WRONLY) }
        try #require(descriptor >= 0)
        let body = Data("title,user\n".utf8) + rows(1, 5000)
        await blocking { writeAll(descriptor, body) }
        var iterator = reached.makeAsyncIterator()
        _ = await iterator.next()
        return (task, descriptor)
    }

    @Test func otherWritersGoOnWhileTheInputPauses() async throws {
        let (task, descriptor) = try await startPausedImport(scratch.path("items.csv"))
        // Another connection to the file writes while the import waits for input. Before,
        // the import held the write lock here, and this failed with "database is locked".
        let other = try Store(path: try #require(store.path))
        try await other.users.insert(NewUser(name: "Cid", email: "cid@example.com"))
        // So does the importing store itself: it holds its writer for one batch at a time.
        try await store.users.insert(NewUser(name: "Dee", email: "dee@example.com"))
        let rest = rows(5001, 1000)
        await blocking {
            writeAll(descriptor, rest)
            close(descriptor)
        }
        let summary = try await task.value
        #expect(summary.inserted == 6000 && summary.rows == 6000)
        #expect(try await store.items.count(matching: ItemQuery()) == 6000)
        #expect(try await store.users.user(email: "cid@example.com") != nil)
        #expect(try await store.users.user(email: "dee@example.com") != nil)
    }

    @Test(.timeLimit(.minutes(5)))
    func cancellingStopsTheImportAndChangesNothing() async throws {
        let (task, descriptor) = try await startPausedImport(scratch.path("items.csv"))
        task.cancel()
        // The caller learns at once, while the import still waits for input.
        await #expect(throws: CancellationError.self) { try await task.value }
        let rest = rows(5001, 1000)
        await blocking {
            writeAll(descriptor, rest)
            close(descriptor)
        }
        // The store takes writes as before, and the cancelled import never commits.
        let summary = try await Importer(store: store).importItems(
            from: .file(try scratch.file("b.csv", "title,user\nAfter,ann@example.com\n")))
        #expect(summary.inserted == 1)
        #expect(try await store.items.count(matching: ItemQuery()) == 1)
    }

    @Test func aTaskCancelledBeforehandImportsNothing() async throws {
        let path = try scratch.file("a.csv", "title,user\nA,ann@example.com\n")
        let importer = Importer(store: store)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await importer.importItems(from: .file(path))
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(try await store.items.count(matching: ItemQuery()) == 0)
    }

    @Test func aStoreProblemBeforeAReadingProblemIsTheOneReported() async throws {
        let path = try scratch.file("a.csv", "id,title,user\n1,A,ann@example.com\n1,B,ann@example.com\n5,,x@y.z\n")
        do {
            _ = try await Importer(store: store).importItems(from: .file(path))
            Issue.record("the import succeeded")
        } catch let error as TransferError {
            #expect(error.position == SourcePosition(line: 3, column: 1) && error.field == "id")
            #expect(error.value == "\"1\"")
        }
        #expect(try await store.items.count(matching: ItemQuery()) == 0)
    }

    @Test(arguments: [false, true])
    func problemsAndRejectsKeepInputOrder(dryRun: Bool) async throws {
        let path = try scratch.file(
            "s.csv", "title,user\nGood,ann@example.com\nLost,who@x.y\n,bob@example.com\nAlso good,bob@example.com\n")
        let rejects = scratch.path("rejects.csv")
        let summary = try await Importer(store: store).importItems(
            from: .file(path), options: ImportOptions(skipInvalid: true, rejectsPath: rejects, dryRun: dryRun))
        #expect(summary.inserted == 2 && summary.skipped == 2)
        #expect(summary.problems.map { $0.position?.description } == ["3:6", "4:1"])
        #expect(summary.problems.map(\.field) == ["user", "title"])
        #expect(summary.problems.first?.value == "\"who@x.y\"")
        let lines = try scratch.read("rejects.csv").components(separatedBy: "\r\n")
        #expect(lines.count == 4 && lines[0] == "title,user,error")
        // The reason is a CSV field: quoted, its quotes doubled.
        #expect(
            lines[1].hasPrefix(
                "Lost,who@x.y,\"\(path):3:6: field 'user', value \"\"who@x.y\"\": no user has this email"))
        #expect(lines[2].hasPrefix(",bob@example.com,\(path):4:1: field 'title'"))
        #expect(try await store.items.count(matching: ItemQuery()) == (dryRun ? 0 : 2))
    }

    @Test func aHugeHeaderGivesAShortMessage() async throws {
        // 500 columns: read, then refused by the header check, which lists ten.
        let header = (0..<500).map { "column\($0)" }.joined(separator: ",")
        let path = try scratch.file("wide.csv", header + "\n")
        do {
            _ = try await Importer(store: store).importItems(from: .file(path))
            Issue.record("the import succeeded")
        } catch let error as TransferError {
            #expect(error.description.utf8.count < 1000)
            #expect(error.description.contains("column0, column1,"))
            #expect(error.description.contains("… (500 in all)"))
        }
        // 100,000 columns: the reader refuses the row before anything lists them.
        let widest = try scratch.file("widest.csv", (0..<100_000).map { "c\($0)" }.joined(separator: ",") + "\n")
        do {
            _ = try await Importer(store: store).importItems(from: .file(widest))
            Issue.record("the import succeeded")
        } catch let error as TransferError {
            #expect(error.description.utf8.count < 1000)
            #expect(error.description.contains(":1:"))
        }
    }

    @Test func aJSONEscapedNULIsPlacedInTheValue() async throws {
        let path = try scratch.file("nul.json", #"[{"title": "abc\u0000d", "user": "ann@example.com"}]"#)
        do {
            _ = try await Importer(store: store).importItems(from: .file(path))
            Issue.record("the import succeeded")
        } catch let error as TransferError {
            #expect(error.description.contains("its byte 4 in the value"), "\(error)")
            #expect(!error.description.contains("byte -"))
        }
        #expect(try await store.items.count(matching: ItemQuery()) == 0)
    }

    @Test func aHugeColumnNameGivesAShortMessage() async throws {
        let name = String(repeating: "x", count: 100_000)
        let path = try scratch.file("long.csv", "title,user,\(name)\nA,ann@example.com,1\n")
        do {
            _ = try await Importer(store: store).importItems(from: .file(path))
            Issue.record("the import succeeded")
        } catch let error as TransferError {
            #expect(error.description.utf8.count < 1000)
            #expect(error.field == String(repeating: "x", count: 60) + "…")
        }
    }

    @Test func aRecordSurvivesStaging() throws {
        var record = SourceRecord()
        record.position = SourcePosition(line: 12, column: 3)
        record.storage = Array("ann@example.comDune".utf8)
        record.values = [
            SourceValue(kind: .text, start: 0, end: 15, position: SourcePosition(line: 12, column: 3)), nil,
            SourceValue(kind: .number, start: 15, end: 19, position: SourcePosition(line: 13, column: 1)),
        ]
        let decoded = SourceRecord(encoded: record.encoded())
        #expect(decoded.position == record.position && decoded.storage == record.storage)
        #expect(decoded.values.map { $0?.kind } == [.text, nil, .number])
        #expect(decoded.values.map { $0?.position } == record.values.map { $0?.position })
        #expect(decoded.values.map { $0?.end } == [15, nil, 19])
        // Bytes it did not write give an empty record, not a crash.
        #expect(SourceRecord(encoded: Data([1, 2, 3])).values.isEmpty)
    }
}

/// Runs `body` on a thread outside the cooperative pool (it may block: a FIFO's open, a write).
private func blocking<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(returning: body()) }
    }
}

private func writeAll(_ descriptor: Int32, _ data: Data) {
    data.withUnsafeBytes { buffer in
        guard let base = buffer.baseAddress else { return }
        var offset = 0
        while offset < buffer.count {
            let written = write(descriptor, base + offset, buffer.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
    }
}
