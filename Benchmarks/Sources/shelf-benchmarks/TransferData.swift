import Foundation
import ShelfStore

/// The transfer benchmark's input files, in the CSV `shelf export` writes (and both sides of
/// the benchmark read): generated once per size with a seeded generator, so every run and
/// machine reads the same bytes, and cached under ~/.cache/shelf-benchmarks/transfer-v1.
///
/// - `users-U.csv`: `id,name,email,created_at`, users 1…U as `userI@example.com`.
/// - `items-N-uU.csv`: `id,user,title,notes,status,priority,created_at,updated_at`, items
///   1…N owned by random users among the U; a third have notes, some of them with commas,
///   quotes or a line break (quoted fields), some titles not ASCII.
/// - `items-changed-N-uU.csv`: N rows for an upsert or replace against a store of the first
///   file: IDs N/10+1 … N+N/10, so 90% update an existing item (another title, status,
///   priority, owner and update time) and 10% are new; a replace also deletes the 10% the file
///   lacks (IDs 1 … N/10).
struct TransferData {
    let folder: URL

    init() throws {
        folder = FileManager.default.homeDirectoryForCurrentUser
            .appendingPathComponent(".cache/shelf-benchmarks/transfer-v1", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    func users(_ count: Int, report: Report) throws -> String {
        try cached("users-\(count).csv", report: report) { file in
            var random = SeededRandomNumberGenerator(seed: 1_500 + UInt64(count))
            var bytes = Array("id,name,email,created_at\n".utf8)
            for id in 1...count {
                let name = Self.names[Int(random.next() % UInt64(Self.names.count))]
                bytes += Array("\(id),\(name) \(id),user\(id)@example.com,".utf8)
                TimeFormat.appendISO8601(millisecondsSince1970: Self.base - Int64(id) * 1_000, to: &bytes)
                bytes.append(0x0A)
                try file.flush(&bytes, force: id == count)
            }
        }
    }

    func items(_ count: Int, users: Int, report: Report) throws -> String {
        try cached("items-\(count)-u\(users).csv", report: report) { file in
            var random = SeededRandomNumberGenerator(seed: 15)
            var bytes = Array("id,user,title,notes,status,priority,created_at,updated_at\n".utf8)
            for id in 1...count {
                Self.appendItem(id: Int64(id), revised: false, users: users, random: &random, to: &bytes)
                try file.flush(&bytes, force: id == count)
            }
        }
    }

    func changedItems(_ count: Int, users: Int, report: Report) throws -> String {
        try cached("items-changed-\(count)-u\(users).csv", report: report) { file in
            var random = SeededRandomNumberGenerator(seed: 16)
            var bytes = Array("id,user,title,notes,status,priority,created_at,updated_at\n".utf8)
            let first = count / 10 + 1
            for id in first..<(first + count) {
                Self.appendItem(id: Int64(id), revised: true, users: users, random: &random, to: &bytes)
                try file.flush(&bytes, force: id == first + count - 1)
            }
        }
    }

    /// The file `name`, made by `write` when it is not there yet (written aside, then
    /// renamed: a file in the cache is always whole).
    private func cached(_ name: String, report: Report, write: (FileWriter) throws -> Void) throws -> String {
        let path = folder.appendingPathComponent(name).path
        if FileManager.default.fileExists(atPath: path) { return path }
        report.note("writing \(path) (once)…")
        let partial = path + ".partial"
        guard FileManager.default.createFile(atPath: partial, contents: nil),
            let handle = FileHandle(forWritingAtPath: partial)
        else { throw BenchmarkError("cannot create \(partial)") }
        try write(FileWriter(handle: handle))
        try handle.close()
        guard rename(partial, path) == 0 else { throw BenchmarkError("cannot rename \(partial) to \(path)") }
        return path
    }

    struct FileWriter {
        let handle: FileHandle

        /// Writes `bytes` out when they pass 1 MB (or `force`), and empties them.
        func flush(_ bytes: inout [UInt8], force: Bool) throws {
            guard force || bytes.count > 1 << 20 else { return }
            try handle.write(contentsOf: bytes)
            bytes.removeAll(keepingCapacity: true)
        }
    }

    /// 2024-01-01T00:00:00Z: items are created 30 s apart from here.
    private static let base: Int64 = 1_704_067_200_000

    private static func appendItem(
        id: Int64, revised: Bool, users: Int, random: inout SeededRandomNumberGenerator, to bytes: inout [UInt8]
    ) {
        func pick(_ words: [String]) -> String { words[Int(random.next() % UInt64(words.count))] }
        let owner = 1 + Int(random.next() % UInt64(users))
        var title = pick(verbs) + " " + pick(objects) + " " + pick(words)
        if random.next() % 4 == 0 { title += " " + pick(words) }
        title += revised ? " (revised \(id))" : " \(id)"
        var notes = ""
        switch random.next() % 30 {
        case 0..<7: notes = pick(words) + " " + pick(words) + " and " + pick(words) + "."
        case 7..<9: notes = "Call " + pick(words) + ", then " + pick(words) + "."  // a comma: quoted
        case 9: notes = "The \"" + pick(words) + "\" draft"  // quotes: quoted, doubled
        case 10: notes = "First line.\nSecond line about " + pick(words) + "."  // a line break: quoted
        default: break
        }
        let status = random.next() % 3 == 0 ? "done" : "open"
        let priority = random.next() % 4
        let created = base + id * 30_000
        let updated = created + Int64(random.next() % 2_592_000_000)
        bytes += Array("\(id),user\(owner)@example.com,".utf8)
        appendField(title, to: &bytes)
        bytes.append(0x2C)
        appendField(notes, to: &bytes)
        bytes += Array(",\(status),\(priority),".utf8)
        TimeFormat.appendISO8601(millisecondsSince1970: created, to: &bytes)
        bytes.append(0x2C)
        TimeFormat.appendISO8601(millisecondsSince1970: updated, to: &bytes)
        bytes.append(0x0A)
    }

    /// A CSV field: quoted, quotes doubled, when it holds a comma, a quote or a line break.
    private static func appendField(_ text: String, to bytes: inout [UInt8]) {
        guard text.utf8.contains(where: { $0 == 0x2C || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }) else {
            bytes += Array(text.utf8)
            return
        }
        bytes.append(0x22)
        for byte in text.utf8 {
            if byte == 0x22 { bytes.append(0x22) }
            bytes.append(byte)
        }
        bytes.append(0x22)
    }

    private static let names = [
        "Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Margaret", "Chloé", "Zoë", "Søren", "Priya", "Björn",
    ]
    private static let verbs = [
        "Review", "Write", "Fix", "Plan", "Call", "Order", "Update", "Draft", "Prepare", "Book", "Clean", "Test",
    ]
    private static let objects = [
        "the quarterly report", "the garden fence", "flights to Lisbon", "the budget", "release notes",
        "the kitchen tap", "the café menu", "日本語のドキュメント", "the 🎂 order", "invoices", "the API guide",
    ]
    private static let words = [
        "river", "garden", "letter", "piano", "moth", "lamp", "book", "apple", "zebra", "dune", "review", "figures",
        "meeting", "draft", "budget", "travel", "plan", "notes", "ideas", "naïve", "crème", "straße", "Ørsted", "lumen",
    ]
}
