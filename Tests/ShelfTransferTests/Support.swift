import Foundation
import ShelfSQLiteBackend
import ShelfStore

@testable import ShelfTransfer

/// The public corpora kept in the repository (`Tests/Corpora`, with their licences).
let corpora: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Corpora")

/// A folder of its own per test, removed on release.
final class Scratch {
    let folder: URL

    init() throws {
        // Tests write to FIFOs and pipes whose reader may be gone (a cancelled import closes
        // its input): that must fail with EPIPE, not end the test process with SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-transfer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }

    /// Writes `contents` to a file named `name` and returns its path.
    func file(_ name: String, _ contents: String) throws -> String {
        try file(name, Data(contents.utf8))
    }

    func file(_ name: String, _ contents: Data) throws -> String {
        let path = folder.appendingPathComponent(name).path
        try contents.write(to: URL(fileURLWithPath: path))
        return path
    }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    func read(_ name: String) throws -> String {
        try String(contentsOfFile: path(name), encoding: .utf8)
    }
}

/// An input over `bytes` through a pipe-free temporary file.
func input(_ bytes: [UInt8], name: String = "test.csv") throws -> ByteInput {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-input-\(UUID().uuidString)").path
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    defer { unlink(path) }
    let descriptor = open(path, O_RDONLY)
    return ByteInput(descriptor: descriptor, name: name, closes: true, capacity: 7)
}

/// Every record of a CSV text as strings (nil for no value).
func csvRecords(_ text: String) throws -> [[String?]] {
    var reader = try CSVReader(input: try input(Array(text.utf8)))
    var record = SourceRecord()
    var rows: [[String?]] = []
    while try reader.next(into: &record) {
        rows.append(try record.values.map { try $0.flatMap { $0.kind == .null ? nil : try record.string($0) } })
    }
    return rows
}

/// The error reading `text` as CSV throws.
func csvError(_ text: String) -> TransferError? {
    do {
        _ = try csvRecords(text)
        return nil
    } catch {
        return error as? TransferError
    }
}

/// A fresh store with Ann and Bob.
func makeStore() async throws -> Store {
    let store = try Store.temporary()
    try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
    try await store.users.insert(NewUser(name: "Bob", email: "bob@example.com"))
    return store
}
