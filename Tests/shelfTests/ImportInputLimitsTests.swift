import Foundation
import ShelfTestSupport
import Testing

/// `shelf import` against input that never ends or never comes: nesting without end, a FIFO
/// nobody writes to, a pipe that stalls.
@Suite struct ImportInputLimitsTests {
    let shelf: ShelfProcess

    init() throws {
        shelf = try ShelfProcess()
    }

    private func seed() throws {
        let users = shelf.folder.appendingPathComponent("users.csv").path
        try Data("name,email\nAnn,ann@example.com\n".utf8).write(to: URL(fileURLWithPath: users))
        #expect(try shelf.run(["import", "users", users, "--quiet", "--db", shelf.databasePath]).status == 0)
    }

    /// Feeds `prefix` and then `[` + newline without end to `shelf import items -`, until the
    /// import stops reading; returns its status, stderr and how many bytes it took.
    private func feedEndlessNesting(_ prefix: String, _ arguments: [String]) async throws -> (Int32, String, Int) {
        var descriptors: [Int32] = [0, 0]
        #expect(pipe(&descriptors) == 0)
        let errors = shelf.folder.appendingPathComponent("err-\(UUID().uuidString)").path
        let child = try ChildProcess(
            ShelfProcess.executable.path,
            ["import", "items", "-", "--format", "json", "--db", shelf.databasePath] + arguments,
            environment: ["PATH": "/usr/bin:/bin"], input: .descriptor(descriptors[0]), output: .file("/dev/null"),
            stderr: errors)
        close(descriptors[0])
        let writer = descriptors[1]
        // Written on a thread of its own: the write blocks while the pipe is full.
        let written = await withCheckedContinuation { (continuation: CheckedContinuation<Int, Never>) in
            Thread.detachNewThread {
                var total = 0
                let chunk = Array(prefix.utf8) + Array(repeating: Array("[\n".utf8), count: 32_768).flatMap { $0 }
                let deadline = ContinuousClock.now + .seconds(30)
                var first = true
                while ContinuousClock.now < deadline {
                    let bytes = first ? chunk : Array(chunk.dropFirst(prefix.utf8.count))
                    first = false
                    let count = bytes.withUnsafeBytes { write(writer, $0.baseAddress, $0.count) }
                    if count <= 0 { break }  // EPIPE: the import stopped reading
                    total += count
                }
                close(writer)
                continuation.resume(returning: total)
            }
        }
        let status = child.wait()
        return (status, (try? String(contentsOfFile: errors, encoding: .utf8)) ?? "", written)
    }

    @Test(arguments: [
        (#"[{"user":"ann@example.com","title":"x","notes":"#, [String]()),
        (#"[{"user":"ann@example.com","title":"x","extra":"#, ["--ignore-unknown"]),
    ])
    func endlessNestingStopsAtOnceWithItsPlace(_ prefix: String, _ arguments: [String]) async throws {
        defer { shelf.cleanUp() }
        try seed()
        let (status, error, written) = try await feedEndlessNesting(prefix, arguments)
        #expect(status == 1, "\(error)")
        // The 63rd bracket inside the record is the 65th level: line 63, after the prefix on line 1.
        #expect(error.contains("Error: stdin:63:1: values nested deeper than 64 levels"), "\(error)")
        #expect(error.contains("Nothing was imported"), "\(error)")
        // It stopped after reading a few buffers, not the endless stream: memory stayed bounded.
        #expect(written < 8 << 20, "\(written) bytes were read")
    }
}
