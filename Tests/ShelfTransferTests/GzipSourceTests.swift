import Foundation
import ShelfStore
import Synchronization
import Testing

@testable import ShelfTransfer

/// Bytes handed out at most `chunk` at a time, as a pipe may.
private final class ChunkedSource: ByteSource {
    private let bytes: [UInt8]
    private let chunk: Int
    private(set) var consumed = 0

    init(_ bytes: [UInt8], chunk: Int) {
        self.bytes = bytes
        self.chunk = chunk
    }

    var size: Int? { bytes.count }

    func read(into start: UnsafeMutablePointer<UInt8>, capacity: Int) throws(TransferError) -> Int {
        let count = min(chunk, capacity, bytes.count - consumed)
        start.update(from: Array(bytes[consumed..<consumed + count]), count: count)
        consumed += count
        return count
    }
}

/// `GzipSource`, `DecompressingSource` and `GzipCompressor` on bytes in memory.
@Suite struct GzipSourceTests {
    /// `text` as one gzip member, written by `GzipCompressor` in pieces of `piece` bytes.
    private func compressed(_ text: [UInt8], piece: Int = 1 << 16) throws -> [UInt8] {
        let compressor = try GzipCompressor(name: "test")
        var output: [UInt8] = []
        var start = 0
        repeat {
            let end = min(text.count, start + piece)
            try compressor.compress(Array(text[start..<end]), finishing: end == text.count) { chunk in
                output.append(contentsOf: chunk)
            }
            start = end
        } while start < text.count
        return output
    }

    /// Everything `source` yields, read `capacity` bytes at a time at most.
    private func drain(_ source: any ByteSource, capacity: Int) throws -> [UInt8] {
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        defer { buffer.deallocate() }
        var output: [UInt8] = []
        while true {
            let read = try source.read(into: buffer, capacity: capacity)
            if read == 0 { return output }
            #expect(read <= capacity)
            output.append(contentsOf: UnsafeBufferPointer(start: buffer, count: read))
        }
    }

    private var sample: [UInt8] {
        var text = ""
        for index in 0..<5_000 { text += "line \(index),é ✓,\(index * 7919 % 104_729)\r\n" }
        return Array(text.utf8)
    }

    @Test(arguments: [(1, 1), (1, 7), (3, 4096), (65_536, 1), (65_536, 1 << 18)])
    func membersReadWhateverTheChunking(_ chunk: Int, _ capacity: Int) throws {
        let text = sample
        let data = try compressed(Array(text[..<1000])) + compressed([]) + compressed(Array(text[1000...]), piece: 999)
        let source = DecompressingSource(ChunkedSource(data, chunk: chunk), name: "in.csv.gz")
        #expect(try drain(source, capacity: capacity) == text)
        #expect(source.consumed == data.count)
        #expect(try source.read(into: .allocate(capacity: 1), capacity: 1) == 0, "the end stays the end")
    }

    @Test(arguments: [[], [0x41], [0x1F], [0x1F, 0x8C], Array("title\r\nx\r\n".utf8)] as [[UInt8]])
    func plainBytesPassThrough(_ bytes: [UInt8]) throws {
        for chunk in [1, 2, 100] {
            let source = DecompressingSource(ChunkedSource(bytes, chunk: chunk), name: "in.csv")
            #expect(try drain(source, capacity: chunk == 100 ? 1 : 3) == bytes)
        }
    }

    @Test func compressionIsDeterministicAndStandard() throws {
        let text = sample
        let once = try compressed(text)
        #expect(try compressed(text) == once)
        // Header: deflate, no flags (no name), mtime 0, extra flags 0, Unix; trailer: length.
        #expect(Array(once.prefix(10)) == [0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0, 0x03])
        let length = once.suffix(4).reversed().reduce(0) { $0 << 8 | Int($1) }
        #expect(length == text.count)
        #expect(once.count < text.count / 3)
    }

    @Test(arguments: [1, 4096])
    func everyCutIsAnErrorNeverAShorterText(_ capacity: Int) throws {
        let data = try compressed(Array(sample.prefix(3000)))
        for length in 1..<data.count {
            let source = DecompressingSource(ChunkedSource(Array(data.prefix(length)), chunk: 7), name: "x.gz")
            let error = #expect(throws: TransferError.self, "\(length)") { try drain(source, capacity: capacity) }
            #expect(
                error?.description.hasPrefix(
                    "x.gz: the gzip data is cut short: it ends after \(length) compressed bytes")
                    == true, "\(String(describing: error))")
        }
    }

    @Test func headerOnlyBytesAreCorruptGzipNotText() throws {
        let source = DecompressingSource(
            ChunkedSource([0x1F, 0x8B, 0x08, 0x00] + [UInt8](repeating: 0, count: 20), chunk: 64), name: "in.txt")
        #expect {
            try drain(source, capacity: 64)
        } throws: { error in
            let description = (error as? TransferError)?.description ?? ""
            return description.hasPrefix("in.txt: the gzip data is corrupt") && description.contains("gzip -t in.txt")
        }
    }

    @Test func progressCountsCompressedBytesAgainstTheFileSize() async throws {
        let scratch = try Scratch()
        var text = "title,user,priority\n"
        // Titles that compress poorly, so the compressed file is several input buffers long.
        for index in 0..<30_000 {
            text += "Task \(String(index &* 2_654_435_761 % 4_294_967_291, radix: 36)),ann@example.com,\(index % 4)\n"
        }
        let data = try compressed(Array(text.utf8))
        let path = try scratch.file("items.csv.gz", Data(data))
        let reports = Mutex<[ImportProgress]>([])
        let store = try await makeStore()
        let summary = try await Importer(store: store).importItems(from: .file(path)) { progress in
            reports.withLock { $0.append(progress) }
        }
        #expect(summary.rows == 30_000)
        #expect(summary.format == .csv, "the format from the name inside .gz")
        let all = reports.withLock { $0 }
        #expect(data.count > 2 << 16)
        #expect(all.count >= 3)
        #expect(all.allSatisfy { $0.totalBytes == data.count })
        let read = all.map(\.bytesRead)
        #expect(read == read.sorted() && read.last == data.count, "\(read)")
        #expect(read[0] < data.count, "counted as read, not all at once: \(read)")
    }
}
