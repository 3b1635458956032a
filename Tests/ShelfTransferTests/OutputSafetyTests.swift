import Foundation
import ShelfSQLiteBackend
import ShelfStore
import Testing

@testable import ShelfTransfer

/// Exports never replace what they must not: the store's files, other SQLite files, devices.
@Suite struct OutputSafetyTests {
    /// A store in `scratch` with Ann and one item.
    private func fileStore(_ scratch: Scratch) async throws -> Store {
        let store = try Store(path: scratch.path("shelf.sqlite"))
        let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
        try await store.items.insert(NewItem(userID: ann, title: "Read Dune"))
        return store
    }

    private func refusal(_ body: () async throws -> Void) async -> String? {
        do {
            try await body()
            return nil
        } catch let error as TransferError {
            return error.description
        } catch {
            return "\(error)"
        }
    }

    @Test func exportRefusesTheStoreItsCompanionsAndOtherDatabases() async throws {
        let scratch = try Scratch()
        let store = try await fileStore(scratch)
        let exporter = Exporter(store: store)
        let database = scratch.path("shelf.sqlite")
        // Another spelling, a symbolic link and a hard link of the open database.
        symlink(database, scratch.path("link.csv"))
        link(database, scratch.path("hard.csv"))
        let other = try Store(path: scratch.path("other.sqlite"))
        _ = other
        for path in [
            database, scratch.folder.path + "/./shelf.sqlite", scratch.path("link.csv"), scratch.path("hard.csv"),
            database + "-wal", scratch.path("other.sqlite"),
        ] {
            let before = try Data(contentsOf: URL(fileURLWithPath: database))
            let message = await refusal { try await exporter.exportItems(format: .csv, to: .file(path)) }
            #expect(message?.contains("refusing to write \(path)") == true, "\(path): \(message ?? "written")")
            #expect(try Data(contentsOf: URL(fileURLWithPath: database)) == before)
        }
        #expect(try await store.items.count(matching: ItemQuery()) == 1)
        // No temporary file is left behind.
        let names = try FileManager.default.contentsOfDirectory(atPath: scratch.folder.path)
        #expect(!names.contains { $0.contains(".partial-") })
    }

    @Test func aWriteAheadLogOrJournalIsRecognisedByItsHeader() async throws {
        let scratch = try Scratch()
        let store = try await fileStore(scratch)
        let wal = try scratch.file("copy.bin", Data([0x37, 0x7F, 0x06, 0x82] + [UInt8](repeating: 0, count: 28)))
        let journal = try scratch.file("j.bin", Data([0xD9, 0xD5, 0x05, 0xF9, 0x20, 0xA1, 0x63, 0xD7, 0, 0]))
        for path in [wal, journal] {
            let message = await refusal { try await Exporter(store: store).exportUsers(format: .csv, to: .file(path)) }
            #expect(message?.contains("SQLite") == true, "\(message ?? "written")")
        }
    }

    @Test func aReplacedFileKeepsItsPermissionsAndALinkStaysALink() async throws {
        let scratch = try Scratch()
        let store = try await fileStore(scratch)
        let target = try scratch.file("items.csv", "old")
        chmod(target, 0o640)
        symlink(target, scratch.path("link.csv"))
        try await Exporter(store: store).exportItems(format: .csv, to: .file(scratch.path("link.csv")))
        var status = stat()
        #expect(lstat(scratch.path("link.csv"), &status) == 0 && status.st_mode & S_IFMT == S_IFLNK)
        #expect(stat(target, &status) == 0 && status.st_mode & 0o777 == 0o640)
        #expect(try scratch.read("items.csv").contains("Read Dune"))

        let mask = umask(0o027)
        defer { umask(mask) }
        try await Exporter(store: store).exportItems(format: .csv, to: .file(scratch.path("new.csv")))
        #expect(stat(scratch.path("new.csv"), &status) == 0 && status.st_mode & 0o777 == 0o640)
    }

    @Test(.enabled(if: getuid() == 0, "only root can give a file to another user"))
    func aReplacedFileKeepsItsOwner() async throws {
        let scratch = try Scratch()
        let store = try await fileStore(scratch)
        let target = try scratch.file("theirs.csv", "old")
        #expect(chown(target, 4321, 4321) == 0)
        try await Exporter(store: store).exportItems(format: .csv, to: .file(target))
        var status = stat()
        #expect(stat(target, &status) == 0 && status.st_uid == 4321 && status.st_gid == 4321)
    }

    @Test func aFIFOIsWrittenInPlaceNeverReplaced() async throws {
        let scratch = try Scratch()
        let store = try await fileStore(scratch)
        let fifo = scratch.path("out.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let reader = Task.detached { () -> Data in
            let descriptor = open(fifo, O_RDONLY)
            defer { close(descriptor) }
            var data = Data()
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(descriptor, &buffer, buffer.count)
                if count <= 0 { return data }
                data.append(contentsOf: buffer[0..<count])
            }
        }
        try await Exporter(store: store).exportItems(format: .ndjson, to: .file(fifo))
        let data = await reader.value
        #expect(String(decoding: data, as: UTF8.self).contains("Read Dune"))
        var status = stat()
        #expect(lstat(fifo, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO)
    }

    @Test func rejectsRefuseProtectedPaths() throws {
        let scratch = try Scratch()
        let input = try scratch.file("input.csv", "title\nx\n")
        var columns = Columns()
        _ = columns.intern("title")
        #expect(throws: TransferError.self) {
            _ = try Rejects(
                path: scratch.folder.path + "/./input.csv", format: .csv, columns: columns, protecting: [input])
        }
        #expect(try scratch.read("input.csv") == "title\nx\n")
    }

    @Test func terminalTextEscapesControlsButKeepsLineEnds() {
        func escaped(_ text: String) -> String {
            var output: [UInt8] = []
            let rest = TerminalText.escape(Array(text.utf8), into: &output)
            #expect(rest.isEmpty)
            return String(decoding: output, as: UTF8.self)
        }
        #expect(escaped("a\u{1B}]52;c;aGk=\u{07}b\r\n") == "a␛]52;c;aGk=␇b\r\n")
        #expect(escaped("x\u{7F}\u{9B}31m\u{202E}y\tz\n") == "x␡\u{FFFD}31m\u{FFFD}y\tz\n")
        #expect(escaped("lone\rcr!") == "lone␍cr!")
        #expect(escaped("日本 😀") == "日本 😀")
        // A sequence cut at the end of a chunk is carried over, not mangled.
        var output: [UInt8] = []
        let rest = TerminalText.escape(Array(Array("é".utf8).dropLast()), into: &output)
        #expect(output.isEmpty && rest == [0xC3])
    }
}
