import Foundation
import ShelfTestSupport
import Testing

/// gzip input and output through the real `shelf` binary, checked against the system's
/// `gzip` (to make inputs and to check outputs).
@Suite struct GzipCommandTests {
    let shelf: ShelfProcess

    init() throws {
        shelf = try ShelfProcess()
    }

    private func run(_ arguments: String..., db: String? = nil) async throws -> ShelfProcess.Result {
        try await shelf.run(arguments + ["--db", db ?? shelf.databasePath])
    }

    /// Runs `shelf arguments` with stdin read from the file at `stdin` (bytes, not text).
    private func run(_ arguments: [String], stdin: String) throws -> ShelfProcess.Result {
        let files = shelf.folder.appendingPathComponent("run-\(UUID().uuidString)").path
        defer { for suffix in [".out", ".err"] { unlink(files + suffix) } }
        let status = try ChildProcess(
            ShelfProcess.executable.path, arguments + ["--db", shelf.databasePath], environment: environment,
            input: .file(stdin), output: .file(files + ".out"), stderr: files + ".err"
        ).wait()
        return ShelfProcess.Result(
            status: status, output: (try? String(contentsOfFile: files + ".out", encoding: .utf8)) ?? "",
            error: (try? String(contentsOfFile: files + ".err", encoding: .utf8)) ?? "")
    }

    private var environment: [String: String] {
        ["PATH": "/usr/bin:/bin", "HOME": shelf.folder.appendingPathComponent("home").path]
    }

    private func path(_ name: String) -> String { shelf.folder.appendingPathComponent(name).path }

    private func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        try Data(bytes).write(to: URL(fileURLWithPath: path(name)))
        return path(name)
    }

    private func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// `text` compressed by the system's gzip (`-n`: no name or time in the header).
    private func gzip(_ text: [UInt8]) throws -> [UInt8] {
        let plain = try write("plain-\(UUID().uuidString)", text)
        defer { unlink(plain) }
        let compressed = plain + ".gz"
        defer { unlink(compressed) }
        let status = try ChildProcess(
            "/usr/bin/gzip", ["-n", "-c", plain], environment: environment, stdout: compressed
        ).wait()
        try #require(status == 0)
        return try bytes(compressed)
    }

    /// What `gzip -d -c` makes of the file at `path`, or nil when it refuses it.
    private func gunzip(_ path: String) throws -> [UInt8]? {
        let output = path + ".gunzipped"
        defer { unlink(output) }
        let status = try ChildProcess("/usr/bin/gzip", ["-d", "-c", path], environment: environment, stdout: output)
            .wait()
        return status == 0 ? try bytes(output) : nil
    }

    private func seed() async throws {
        let users = try write("users.csv", Array("name,email\nAnn,ann@example.com\n\"Bob, Jr\",bob@example.com\n".utf8))
        #expect(try await run("import", "users", users, "--quiet").status == 0)
        var items = "title,user,notes,priority,status\n"
        for index in 0..<300 {
            let owner = index % 3 == 0 ? "bob@example.com" : "ann@example.com"
            items += "\"Task \(index), é ✓\",\(owner),\"two\nlines \(index * 7919 % 1000)\",\(index % 4),open\n"
        }
        let file = try write("seed.csv", Array(items.utf8))
        let result = try await run("import", "items", file)
        #expect(result.status == 0, "\(result.error)")
    }

    /// The store's rows, to show that a failed import changed nothing.
    private func contents() async throws -> String {
        try await run("export", "users").output + (try run("export", "items", "--format", "ndjson").output)
    }

    @Test(arguments: ["csv", "json", "ndjson"])
    func exportImportExportIsByteIdentical(_ format: String) async throws {
        defer { shelf.cleanUp() }
        try await seed()
        let users = path("users.\(format).gz")
        let items = path("items.\(format).gz")
        let exported = try await run("export", "items", "-o", items)
        #expect(exported.status == 0)
        #expect(exported.error.contains("to \(items) (\(format), gzip)"), "\(exported.error)")
        #expect(try await run("export", "users", "-o", users, "--quiet").status == 0)
        // Deterministic header: deflate, no flags (no name), modification time 0, Unix.
        #expect(try bytes(items).prefix(10) == [0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0, 0x03])
        // gzip reads it, and it holds what the uncompressed export holds.
        let plain = try await run("export", "items", "--format", format)
        #expect(try gunzip(items) == Array(plain.output.utf8))

        let copy = path("copy.sqlite")
        #expect(try await run("import", "users", users, "--quiet", db: copy).status == 0)
        let imported = try await run("import", "items", items, db: copy)
        #expect(imported.status == 0, "\(imported.error)")
        #expect(imported.error.contains("Imported 300 rows of items from \(items) (\(format))"))
        let again = path("again.\(format).gz")
        let usersAgain = path("users-again.\(format).gz")
        #expect(try await run("export", "items", "-o", again, "--quiet", db: copy).status == 0)
        #expect(try await run("export", "users", "-o", usersAgain, "--quiet", db: copy).status == 0)
        #expect(try bytes(again) == bytes(items))
        #expect(try bytes(usersAgain) == bytes(users))
    }

    @Test func gzipFlagWritesStdoutAndStdinIsRecognizedByItsBytes() async throws {
        defer { shelf.cleanUp() }
        try await seed()
        let piped = path("stdout-items")
        let result = try await shelf.run(
            ["export", "items", "--gzip", "--format", "json", "--db", shelf.databasePath], stdout: .file(piped))
        #expect(result.status == 0, "\(result.error)")
        #expect(try bytes(piped).starts(with: [0x1F, 0x8B]))
        // The same bytes as -o items.json.gz.
        #expect(try await run("export", "items", "-o", path("items.json.gz"), "--quiet").status == 0)
        #expect(try bytes(piped) == bytes(path("items.json.gz")))

        let items = try await run("export", "items").output
        let imported = try run(["import", "items", "-", "--mode", "replace"], stdin: piped)
        #expect(imported.status == 0, "\(imported.error)")
        #expect(imported.error.contains("from stdin (json)"), "\(imported.error)")
        #expect(try await run("export", "items").output == items)
    }

    @Test func aFileWithoutTheExtensionIsRecognizedByItsBytes() async throws {
        defer { shelf.cleanUp() }
        try await seed()
        let ndjson = try await run("export", "items", "--format", "ndjson").output
        let file = try write("items.export", try gzip(Array(ndjson.utf8)))
        let result = try await run("import", "items", file, "--mode", "replace")
        #expect(result.status == 0, "\(result.error)")
        #expect(result.error.contains("(ndjson)"), "the format comes from the decompressed text")
        #expect(try await run("export", "items", "--format", "ndjson").output == ndjson)
    }

    @Test func concatenatedMembersReadAsOneText() async throws {
        defer { shelf.cleanUp() }
        try await seed()
        let csv = await Array(try run("export", "items").output.utf8)
        // Cut inside a line and inside a UTF-8 sequence: members are bytes, not lines.
        let cut = try #require(csv.firstIndex(of: 0xC3)) + 1
        let joined = try gzip(Array(csv[..<cut])) + gzip([]) + gzip(Array(csv[cut...]))
        let file = try write("joined.csv.gz", joined)
        #expect(try gunzip(file) == csv)
        let result = try await run("import", "items", file, "--mode", "replace")
        #expect(result.status == 0, "\(result.error)")
        await #expect(Array(try run("export", "items").output.utf8) == csv)
    }

    @Test func emptyGzipIsAnEmptyText() async throws {
        defer { shelf.cleanUp() }
        try await seed()
        let before = try await contents()
        let plain = try await run("import", "items", try write("empty.csv", []))
        let compressed = try await run("import", "items", try write("empty.csv.gz", try gzip([])))
        #expect(plain.status == compressed.status)
        #expect(
            compressed.error.replacingOccurrences(of: "empty.csv.gz", with: "empty.csv")
                .replacingOccurrences(of: #"in \d+\.\d\d s"#, with: "", options: .regularExpression)
                == plain.error.replacingOccurrences(of: #"in \d+\.\d\d s"#, with: "", options: .regularExpression))
        // A file named .gz that is empty is no gzip data at all.
        let zero = try await run("import", "items", try write("zero.csv.gz", []))
        #expect(zero.status == 1)
        #expect(zero.error.contains("zero.csv.gz: the file is empty, but its name ends in .gz"), "\(zero.error)")
        #expect(try await contents() == before)
    }

    @Test func truncatedGzipIsAClearErrorAndChangesNothing() async throws {
        defer { shelf.cleanUp() }
        try await seed()
        let whole = try await gzip(Array(try run("export", "items").output.utf8))
        let before = try await contents()
        // In the magic bytes, the header, the deflate data, and the CRC-32 and length trailer.
        for length in [1, 2, 5, 10, 11, whole.count / 2, whole.count - 8, whole.count - 5, whole.count - 1] {
            let file = try write("cut-\(length).csv.gz", Array(whole.prefix(length)))
            for mode in ["upsert", "replace"] {
                let result = try await run("import", "items", file, "--mode", mode)
                #expect(result.status == 1)
                #expect(
                    result.error.contains(
                        "Error: \(file): the gzip data is cut short: it ends after \(length) compressed bytes"),
                    "\(length): \(result.error)")
                #expect(result.error.contains("Get the whole file again"))
                #expect(result.error.contains("the database is unchanged"), "\(result.error)")
            }
        }
        #expect(try await contents() == before)
    }

    @Test(arguments: [(-6, "its CRC-32 does not match"), (-2, "its recorded length does not match")])
    func aCorruptTrailerIsAClearErrorAndChangesNothing(_ offset: Int, _ reason: String) async throws {
        defer { shelf.cleanUp() }
        try await seed()
        let before = try await contents()
        for format in ["csv", "json", "ndjson"] {
            var data = try await gzip(Array(try run("export", "items", "--format", format).output.utf8))
            data[data.count + offset] ^= 0x01
            let file = try write("corrupt.\(format).gz", data)
            #expect(try gunzip(file) == nil, "gzip refuses it too")
            let result = try await run("import", "items", file, "--mode", "replace")
            #expect(result.status == 1)
            #expect(result.error.contains("Error: \(file): the gzip data is corrupt"), "\(result.error)")
            #expect(result.error.contains(reason), "\(format): \(result.error)")
        }
        #expect(try await contents() == before)
    }

    @Test func corruptDataAndTrailingGarbageAreClearErrors() async throws {
        defer { shelf.cleanUp() }
        try await seed()
        let before = try await contents()
        let whole = try await gzip(Array(try run("export", "items").output.utf8))
        var corrupt = whole
        corrupt[20] ^= 0xFF
        let corrupted = try await run("import", "items", try write("bad.csv.gz", corrupt))
        #expect(corrupted.status == 1)
        #expect(corrupted.error.contains("the gzip data is corrupt"), "\(corrupted.error)")

        let garbage = try write("garbage.csv.gz", whole + Array("more\n".utf8))
        let trailing = try await run("import", "items", garbage, "--mode", "replace")
        #expect(trailing.status == 1)
        #expect(
            trailing.error.contains(
                "\(garbage): the bytes after the end of the gzip data (from compressed byte \(whole.count)) are not gzip"
            ),
            "\(trailing.error)")
        #expect(trailing.error.contains("gunzip -c \(garbage) > \(path("garbage.csv"))"))

        let named = try await run("import", "items", try write("plain.csv.gz", Array("title,user\n".utf8)))
        #expect(named.status == 1)
        #expect(named.error.contains("its name ends in .gz, but it is not gzip data"), "\(named.error)")

        let twice = try await run("import", "items", try write("twice.csv.gz", try gzip(whole)))
        #expect(twice.status == 1)
        #expect(twice.error.contains("twice.csv.gz:1:1: this is gzip-compressed twice"), "\(twice.error)")
        #expect(try await contents() == before)
    }

    @Test func aBadRowInsideGzipKeepsItsLineAndColumn() async throws {
        defer { shelf.cleanUp() }
        try await seed()
        let before = try await contents()
        let csv = try write(
            "bad.csv.gz", try gzip(Array("title,user,priority\nok,ann@example.com,1\nbad,ann@example.com,7\n".utf8)))
        let result = try await run("import", "items", csv)
        #expect(result.status == 1)
        #expect(result.error.contains("Error: \(csv):3:21: field 'priority', value \"7\": it is not a priority"))
        let json = try write(
            "bad.json.gz",
            try gzip(Array("[\n  {\"title\": \"a\", \"user\": \"ann@example.com\"},\n  {\"title\": }\n]".utf8)))
        let jsonResult = try await run("import", "items", json)
        #expect(jsonResult.status == 1)
        #expect(jsonResult.error.contains("Error: \(json):3:13: expected a value"), "\(jsonResult.error)")
        #expect(try await contents() == before)
    }

    @Test func compressedOutputIsNeverWrittenToATerminal() async throws {
        defer { shelf.cleanUp() }
        try await seed()
        // script(1) runs the command on a terminal of its own and copies what it shows.
        func onTerminal(_ arguments: String) throws -> (status: Int32, shown: String) {
            let shown = path("terminal-\(UUID().uuidString)")
            let command = "'\(ShelfProcess.executable.path)' \(arguments) --db '\(shelf.databasePath)'"
            let status = try ChildProcess(
                "/usr/bin/script", ["-q", "-e", "-c", command, "/dev/null"], environment: environment, stdout: shown
            ).wait()
            return (status, (try? String(contentsOfFile: shown, encoding: .utf8)) ?? "")
        }
        for arguments in ["export items --gzip", "export items --format json -o /dev/tty --gzip"] {
            let result = try onTerminal(arguments)
            #expect(result.status == 1, "\(arguments)")
            #expect(result.shown.contains("compressed data is not written to a terminal"), "\(result.shown)")
            #expect(!result.shown.contains("\u{1F}"), "no compressed byte reached it")
        }
        // Plain text still is shown.
        let plain = try onTerminal("export users")
        #expect(plain.status == 0)
        #expect(plain.shown.contains("ann@example.com"))
    }

    @Test func aFullDiskIsAClearErrorAndAFailedExportKeepsTheOldFile() async throws {
        defer { shelf.cleanUp() }
        try await seed()
        let full = try await shelf.run(
            ["export", "items", "--gzip", "--db", shelf.databasePath], stdout: .file("/dev/full"))
        #expect(full.status == 1)
        #expect(full.error == "Error: cannot write to stdout: No space left on device\n", "\(full.error)")
        let named = try await run("export", "items", "--gzip", "-o", "/dev/full")
        #expect(named.error == "Error: cannot write to /dev/full: No space left on device\n", "\(named.error)")

        // An export that fails midway (the file size limit stops it after 1 KiB) leaves an
        // existing .gz as it was.
        let existing = try write("items.csv.gz", Array("old".utf8))
        let limited = try ChildProcess(
            "/bin/sh",
            [
                "-c", #"ulimit -f 1; exec "$0" "$@""#, ShelfProcess.executable.path, "export", "items", "-o", existing,
                "--db", shelf.databasePath,
            ],
            environment: environment
        ).wait()
        #expect(limited != 0)
        #expect(try bytes(existing) == Array("old".utf8))
        #expect(try await run("export", "items", "-o", existing, "--quiet").status == 0)
        #expect(try bytes(existing).count > 1024, "the limit stopped the export before its end")
    }

    /// A bomb of highly compressible data (48 MiB of white space in 48 KiB) is read as a
    /// stream: the peak memory of the importing process is that of a 1 MiB one, within a
    /// margin far below the decompressed size (measured in a fresh process by /usr/bin/time).
    @Test func aLargeDecompressedInputKeepsMemoryFlat() async throws {
        defer { shelf.cleanUp() }
        try await seed()
        func peak(spaces: Int) throws -> Int {
            let text =
                Array("[".utf8) + [UInt8](repeating: 0x20, count: spaces)
                + Array("{\"title\": \"x\", \"user\": \"ann@example.com\"}]".utf8)
            let file = try write("bomb-\(spaces).json.gz", try gzip(text))
            let report = path("peak-\(spaces)")
            let status = try ChildProcess(
                "/usr/bin/time",
                [
                    "-f", "%M", "-o", report, ShelfProcess.executable.path, "import", "items", file, "--dry-run",
                    "--db", shelf.databasePath,
                ],
                environment: environment
            ).wait()
            try #require(status == 0)
            let text2 = try String(contentsOfFile: report, encoding: .utf8)
            return try #require(Int(text2.trimmingCharacters(in: .whitespacesAndNewlines)))
        }
        let small = try peak(spaces: 1 << 20)
        let large = try peak(spaces: 48 << 20)
        #expect(large - small < 16 * 1024, "peak RSS \(small) KB for 1 MiB, \(large) KB for 48 MiB")
    }
}
