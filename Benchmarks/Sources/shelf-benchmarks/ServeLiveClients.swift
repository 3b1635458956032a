import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// When each commit was sent, by sequence number, and whose it was (its owner, 1 to 100).
final class CommitLog: Sendable {
    private let commits = Mutex<[Int: (time: Duration, owner: Int)]>([:])
    func record(_ sequence: Int, owner: Int, at time: Duration) { commits.withLock { $0[sequence] = (time, owner) } }
    func time(of sequence: Int) -> Duration? { commits.withLock { $0[sequence]?.time } }
    func all() -> [Int: (time: Duration, owner: Int)] { commits.withLock { $0 } }
}

/// One live client of the serve suite: an SSE stream on `GET /api/items/live` that it keeps
/// across reconnections (`Last-Event-ID`, as an EventSource resumes), and what it read: the
/// commits whose titles (`tN`) it saw and when, the newest event id, ids that did not increase,
/// and its last window's data.
final class LiveClient: Sendable {
    /// The owner (1 to 100) whose open items it watches, or nil for every item.
    let owner: Int?
    let port: Int
    /// Which of the suite's servers it reads from (0: the one the writes go through).
    let server: Int
    let request: String
    private let commits: CommitLog
    private let clock: ContinuousClock
    private let start: ContinuousClock.Instant

    struct State {
        /// Bumped at each reconnection: bytes of an older connection are dropped.
        var generation = 0
        var channel: (any Channel)?
        /// The raw bytes not yet taken apart: the response head, then chunks.
        var raw: [UInt8] = []
        var headDone = false
        /// The de-chunked event stream not yet split into events.
        var events: [UInt8] = []
        var lastID: Int64?
        var lastWindow: [UInt8]?
        var windows = 0
        var repeatedIDs = 0
        var seen = SeenCommits()
        var latencies: [Double] = []
        /// The answer of the current connection when it was not a stream (status line and body).
        var badStatus: String?
        /// Connections before the current one that were answered so, and the first such answer.
        var refusedBefore = 0
        var firstRefusal: String?

        /// Connections of this client not answered with a stream, and the first answer.
        var refusals: (count: Int, first: String?) {
            (refusedBefore + (badStatus == nil ? 0 : 1), firstRefusal ?? badStatus)
        }
    }

    let state = Mutex(State())

    init(
        owner: Int?, port: Int, server: Int, commits: CommitLog, clock: ContinuousClock,
        start: ContinuousClock.Instant
    ) {
        self.owner = owner
        self.port = port
        self.server = server
        self.commits = commits
        self.clock = clock
        self.start = start
        request = "/api/items/live?" + LiveClient.query(owner: owner)
    }

    /// The query string of a client of `owner` (nil: every item), also the fresh read's.
    static func query(owner: Int?) -> String {
        let window = "sort=created&order=desc&limit=\(ServeSuite.windowLimit)"
        guard let owner else { return window }
        return "q=owner:\(ServeSuite.email(owner).prefix(5))%20is:open&" + window
    }

    /// Opens a connection and sends the request, with `Last-Event-ID` when the client has read an id.
    func connect(group: any EventLoopGroup) async throws {
        let (generation, lastID) = state.withLock { ($0.generation, $0.lastID) }
        let resume = lastID.map { "Last-Event-ID: \($0)\r\n" } ?? ""
        let text = "GET \(request) HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\(resume)\r\n"
        let channel = try await ClientBootstrap(group: group)
            .channelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(StreamReader(client: self, generation: generation))
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
        state.withLock { $0.channel = channel }
        try await channel.writeAndFlush(ByteBuffer(string: text)).get()
    }

    /// Drops the connection as a client that vanished would, then connects again resuming
    /// after the last id read.
    func reconnect(group: any EventLoopGroup) async throws {
        let old = state.withLock { state -> (any Channel)? in
            state.generation += 1
            if let bad = state.badStatus {
                state.refusedBefore += 1
                state.firstRefusal = state.firstRefusal ?? bad
                state.badStatus = nil
            }
            state.raw = []
            state.events = []
            state.headDone = false
            defer { state.channel = nil }
            return state.channel
        }
        try? await old?.close()
        try await connect(group: group)
    }

    func close() {
        state.withLock { $0.channel }?.close(promise: nil)
    }

    /// Takes `bytes` read by the connection of `generation`.
    func read(_ bytes: ByteBufferView, generation: Int) {
        let now = clock.now - start
        state.withLock { state in
            guard state.generation == generation else { return }
            state.raw += bytes
            // A refused stream: its status line and the start of its problem+json, for the report.
            if let bad = state.badStatus {
                if bad.utf8.count < 600 { state.badStatus = bad + String(decoding: state.raw, as: UTF8.self) }
                state.raw = []
                return
            }
            if !state.headDone {
                guard let end = Self.find(Self.headEnd, in: state.raw, from: 0) else { return }
                let head = String(decoding: state.raw[0..<end], as: UTF8.self)
                state.raw.removeFirst(end + 4)
                if !head.hasPrefix("HTTP/1.1 200") {
                    state.badStatus = String(head.prefix(200)) + " " + String(decoding: state.raw, as: UTF8.self)
                    state.raw = []
                    return
                }
                state.headDone = true
            }
            // Chunks: SIZE(hex)\r\nDATA\r\n.
            var offset = 0
            while let lineEnd = Self.find(Self.lineEnd, in: state.raw, from: offset) {
                guard let size = Self.chunkSize(state.raw[offset..<lineEnd]) else {
                    let sizeText = String(decoding: state.raw[offset..<lineEnd], as: UTF8.self)
                    state.badStatus = "bad chunk size '\(sizeText.prefix(20))'"
                    state.raw = []
                    return
                }
                guard state.raw.count >= lineEnd + 2 + size + 2 else { break }
                state.events += state.raw[(lineEnd + 2)..<(lineEnd + 2 + size)]
                offset = lineEnd + 2 + size + 2
            }
            if offset > 0 { state.raw.removeFirst(offset) }
            // Events: lines up to a blank line.
            var taken = 0
            while let end = Self.find(Self.eventEnd, in: state.events, from: taken) {
                event(state.events[taken..<end], at: now, into: &state)
                taken = end + 2
            }
            if taken > 0 { state.events.removeFirst(taken) }
        }
    }

    // The byte patterns the parser looks for, made once (an array literal per call was a
    // tenth of the load generator's CPU).
    static let headEnd: [UInt8] = [13, 10, 13, 10]
    static let lineEnd: [UInt8] = [13, 10]
    static let eventEnd: [UInt8] = [10, 10]
    private static let idField = Array("id: ".utf8)
    private static let eventField = Array("event: ".utf8)
    private static let dataField = Array("data: ".utf8)
    private static let windowName = Array("window".utf8)
    private static let titleMarker = Array(#""title":"t"#.utf8)

    /// A chunk-size line's value (hex digits, then an optional `;extension`), or nil.
    static func chunkSize(_ line: ArraySlice<UInt8>) -> Int? {
        var size = 0
        var digits = 0
        for byte in line {
            let value: Int
            switch byte {
            case 48...57: value = Int(byte - 48)
            case 97...102: value = Int(byte - 87)
            case 65...70: value = Int(byte - 55)
            case UInt8(ascii: ";"): return digits > 0 ? size : nil
            default: return nil
            }
            guard digits < 15 else { return nil }
            size = size * 16 + value
            digits += 1
        }
        return digits > 0 ? size : nil
    }

    /// One event's lines (`bytes`, without the blank line that ends it): the id, name and data
    /// fields, taken apart in place.
    private func event(_ bytes: ArraySlice<UInt8>, at now: Duration, into state: inout State) {
        var id: Int64?
        var isWindow = false
        var named = false
        var data: ArraySlice<UInt8> = []
        var lineStart = bytes.startIndex
        while lineStart < bytes.endIndex {
            let lineEnd = bytes[lineStart...].firstIndex(of: 10) ?? bytes.endIndex
            let line = bytes[lineStart..<lineEnd]
            if line.starts(with: Self.idField) {
                var value: Int64 = 0
                var digits = 0
                for byte in line.dropFirst(Self.idField.count) {
                    guard (48...57).contains(byte), digits < 18 else {
                        digits = 0
                        break
                    }
                    value = value * 10 + Int64(byte - 48)
                    digits += 1
                }
                id = digits > 0 ? value : nil
            } else if line.starts(with: Self.eventField) {
                named = true
                isWindow = line.dropFirst(Self.eventField.count).elementsEqual(Self.windowName)
            } else if line.starts(with: Self.dataField) {
                data = line.dropFirst(Self.dataField.count)
            }
            lineStart = lineEnd + 1
        }
        // An event without a name is a "message", not a window.
        guard named, isWindow else { return }
        state.windows += 1
        if let id {
            if let last = state.lastID, id <= last { state.repeatedIDs += 1 }
            state.lastID = max(state.lastID ?? id, id)
        }
        state.lastWindow = Array(data)
        // Titles "tN": the first time this client sees commit N is a delivery.
        let marker = Self.titleMarker
        var index = data.startIndex
        while let found = Self.find(marker, in: data, from: index) {
            var cursor = found + marker.count
            var number = 0
            while cursor < data.endIndex, (48...57).contains(data[cursor]), number < 1 << 40 {
                number = number * 10 + Int(data[cursor] - 48)
                cursor += 1
            }
            if cursor < data.endIndex, data[cursor] == UInt8(ascii: "\""), state.seen[number] == nil,
                let sent = commits.time(of: number)
            {
                state.seen[number] = now
                let delay = now - sent
                state.latencies.append(
                    Double(delay.components.seconds) * 1000 + Double(delay.components.attoseconds) / 1e15)
            }
            index = cursor
        }
    }

    /// The first index at or after `from` where `pattern` starts in `bytes`.
    static func find<C: RandomAccessCollection<UInt8>>(_ pattern: [UInt8], in bytes: C, from: C.Index) -> C.Index?
    where C.Index == Int {
        guard !pattern.isEmpty, bytes.count >= pattern.count else { return nil }
        var index = from
        let last = bytes.endIndex - pattern.count
        while index <= last {
            if bytes[index] == pattern[0] {
                var matched = true
                for offset in 1..<pattern.count where bytes[index + offset] != pattern[offset] {
                    matched = false
                    break
                }
                if matched { return index }
            }
            index += 1
        }
        return nil
    }
}

/// The commits a client has seen, by sequence number (1, 2, …), with when it first saw each:
/// an array indexed by number (a dictionary's hashing was a tenth of the load generator's CPU).
struct SeenCommits {
    private var times: [Duration?] = []
    /// How many commits were seen.
    private(set) var count = 0

    subscript(number: Int) -> Duration? {
        get { number >= 0 && number < times.count ? times[number] : nil }
        set {
            guard number >= 0, number < 1 << 24 else { return }
            if number >= times.count { times += repeatElement(nil, count: number + 1 - times.count) }
            if times[number] == nil, newValue != nil { count += 1 }
            if times[number] != nil, newValue == nil { count -= 1 }
            times[number] = newValue
        }
    }
}

/// Hands a connection's bytes to its `LiveClient`.
final class StreamReader: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    let client: LiveClient
    let generation: Int

    init(client: LiveClient, generation: Int) {
        self.client = client
        self.generation = generation
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        client.read(unwrapInboundIn(data).readableBytesView, generation: generation)
    }
}

/// A window's content as compared with a fresh read: the count and each item's ID and version.
struct WindowContent: Equatable {
    let count: Int
    let items: [[Int]]

    /// From a window event's data or a `GET /api/items` body.
    init?(json: [UInt8]) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json)) as? [String: Any],
            let count = object["count"] as? Int, let items = object["items"] as? [[String: Any]]
        else { return nil }
        self.count = count
        self.items = items.map { [($0["id"] as? Int) ?? -1, ($0["version"] as? Int) ?? -1] }
    }
}

/// The CPU time (user and system) process `pid` has used, in seconds, from /proc.
func processCPUSeconds(_ pid: Int32) -> Double {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = text.lastIndex(of: ")")
    else { return 0 }
    // Fields after "(comm)": state is field 3; utime and stime are fields 14 and 15.
    let fields = text[text.index(after: close)...].split(separator: " ")
    guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}
