internal import Foundation
internal import ShelfStore
internal import Synchronization

/// An items export's read on a thread of its own, a few pages ahead of the thread that
/// formats and writes: reading (SQLite's steps, the type and UTF-8 checks) and writing
/// (formatting, the `write` calls, gzip) each took about half of an export's time, one after
/// the other on one thread. Now they overlap, on a machine's two cores.
///
/// The reading thread copies each row's bytes into a page (`ItemTextPage`) and hands full
/// pages over, at most `depth` waiting: a slow writer makes the read wait, so memory stays
/// flat. The writing thread gets the rows in the read's order and calls its body with each, so
/// the bytes written, where the output is flushed, and which row's error comes first, are what
/// the same read and writes made on one thread gave.
final class ReadAhead: Sendable {
    /// How many full pages may wait for the writer.
    static let depth = 2
    /// A page is handed over once it holds this many rows or bytes (or the read ended).
    static let pageRows = 1_024
    static let pageBytes = 1 << 18

    private struct State: Sendable {
        var ready: [ItemTextPage] = []
        var spare: [ItemTextPage] = []
        /// Set by the reader when its read ended, with its error if it failed.
        var end: Result<Void, any Error>?
        var readerWaits = false
        var writerWaits = false
    }

    private let state = Mutex(State())
    /// Set when the writer stopped (it failed, or wrote everything): the reader stops at its
    /// next row.
    private let writerStopped = Atomic(false)
    /// Wakes the reader waiting for room (`readerWaits`), or the writer waiting for a page or
    /// the end (`writerWaits`). Signalled once per wait, by the side that saw the flag set
    /// under the lock, so no signal is lost and none is left over.
    private let readerWake = DispatchSemaphore(value: 0)
    private let writerWake = DispatchSemaphore(value: 0)
    /// Signalled when the reader's thread is done with the store (its read ended).
    private let readerDone = DispatchSemaphore(value: 0)

    /// Thrown inside the read when the writer stopped; never seen by callers.
    private struct WriterStopped: Error {}

    /// Calls `body`, on the calling thread, with every item `store.forEachItemText(matching:)`
    /// gives, in its order, while a thread of its own reads them. Returns when the read ended
    /// and every row was given to `body`; throws the first error in row order: the read's (a
    /// `StoreError`, or `CancellationError` when `cancellation` is set) or `body`'s. Either way
    /// the reading thread has ended, and its read transaction with it, before this returns.
    /// Blocks the calling thread: call it from a thread that may block, never from a task.
    static func forEachItemText(
        store: Store, matching query: ItemQuery, cancellation: Cancellation,
        _ body: (ExportedItemText) throws -> Void
    ) throws {
        let handoff = ReadAhead()
        // Not fire-and-forget: this thread waits for it (`readerDone`) on every way out below.
        Thread.detachNewThread { [handoff] in
            handoff.read(store: store, matching: query, cancellation: cancellation)
        }
        defer { handoff.stopAndWaitForReader() }
        while let page = try handoff.nextPage() {
            try page.forEach(body)
            handoff.recycle(page)
        }
    }

    // MARK: The reading thread

    private func read(store: Store, matching query: ItemQuery, cancellation: Cancellation) {
        defer { readerDone.signal() }
        var page = ItemTextPage()
        let outcome = Result<Void, any Error> {
            try store.forEachItemText(matching: query) { item in
                try cancellation.check()
                if writerStopped.load(ordering: .relaxed) { throw WriterStopped() }
                page.append(item)
                if page.isFull { page = try send(page) }
            }
        }
        // The rows read before the end (or before a failing row) go first, then the end.
        if !page.isEmpty {
            // The writer stopped: it has its own error or wrote everything; nothing is left to hand over.
            do { _ = try send(page) } catch { return }
        }
        finish(outcome)
    }

    /// Hands `page` to the writer, waiting while `depth` pages wait; returns an empty page to
    /// fill next. Throws when the writer stopped.
    private func send(_ page: ItemTextPage) throws(WriterStopped) -> ItemTextPage {
        while true {
            enum Step {
                case sent(ItemTextPage?, wakeWriter: Bool)
                case wait
                case stopped
            }
            let step = state.withLock { state -> Step in
                if writerStopped.load(ordering: .relaxed) { return .stopped }
                guard state.ready.count < Self.depth else {
                    state.readerWaits = true
                    return .wait
                }
                state.ready.append(page)
                let wake = state.writerWaits
                state.writerWaits = false
                return .sent(state.spare.popLast(), wakeWriter: wake)
            }
            switch step {
            case .sent(let spare, let wake):
                if wake { writerWake.signal() }
                return spare ?? ItemTextPage()
            case .wait: readerWake.wait()
            case .stopped: throw WriterStopped()
            }
        }
    }

    private func finish(_ outcome: Result<Void, any Error>) {
        let wake = state.withLock { state -> Bool in
            state.end = outcome
            defer { state.writerWaits = false }
            return state.writerWaits
        }
        if wake { writerWake.signal() }
    }

    // MARK: The writing thread

    /// The next page in the read's order; nil when the read ended. Throws the read's error
    /// once the pages before it were taken.
    private func nextPage() throws -> ItemTextPage? {
        while true {
            enum Step {
                case page(ItemTextPage, wakeReader: Bool)
                case end(Result<Void, any Error>)
                case wait
            }
            let step = state.withLock { state -> Step in
                if !state.ready.isEmpty {
                    let page = state.ready.removeFirst()
                    defer { state.readerWaits = false }
                    return .page(page, wakeReader: state.readerWaits)
                }
                if let end = state.end { return .end(end) }
                state.writerWaits = true
                return .wait
            }
            switch step {
            case .page(let page, let wake):
                if wake { readerWake.signal() }
                return page
            case .end(let end):
                try end.get()
                return nil
            case .wait: writerWake.wait()
            }
        }
    }

    /// Gives a written page back for the reader to fill again (its buffers keep their room),
    /// unless one huge row made it much bigger than a page: that memory is freed now.
    private func recycle(_ page: ItemTextPage) {
        guard !page.isOversized else { return }
        var page = page
        page.removeAll()
        state.withLock { state in
            if state.spare.count < Self.depth + 1 { state.spare.append(page) }
        }
    }

    /// Stops the reader at its next row or hand-over, and waits until its thread is done.
    private func stopAndWaitForReader() {
        writerStopped.store(true, ordering: .relaxed)
        let wake = state.withLock { state -> Bool in
            defer { state.readerWaits = false }
            return state.readerWaits
        }
        if wake { readerWake.signal() }
        readerDone.wait()
    }
}

/// Rows of an items export copied out of the read (whose bytes are valid only during its
/// call) into one buffer, to be written on another thread.
struct ItemTextPage: Sendable {
    private struct Row: Sendable {
        var id: Int64
        var priority: Int
        var createdAt: Int64
        var updatedAt: Int64
        /// Where each text starts in `bytes`, and its length; notes' length is -1 for none.
        var email: Int
        var emailCount: Int
        var title: Int
        var titleCount: Int
        var notes: Int
        var notesCount: Int
        var status: Int
        var statusCount: Int
    }

    private var bytes: [UInt8] = []
    private var rows: [Row] = []

    var isEmpty: Bool { rows.isEmpty }

    var isFull: Bool { rows.count >= ReadAhead.pageRows || bytes.count >= ReadAhead.pageBytes }

    /// Whether its buffer has room for more than a few pages' bytes (a 60 MB note passed).
    var isOversized: Bool { bytes.capacity > 4 * ReadAhead.pageBytes }

    @inline(__always)
    mutating func append(_ item: ExportedItemText) {
        let email = bytes.count
        bytes.append(contentsOf: item.ownerEmail)
        let title = bytes.count
        bytes.append(contentsOf: item.title)
        let notes = bytes.count
        if let text = item.notes { bytes.append(contentsOf: text) }
        let status = bytes.count
        bytes.append(contentsOf: item.status)
        rows.append(
            Row(
                id: item.id, priority: item.priority, createdAt: item.createdAt, updatedAt: item.updatedAt,
                email: email, emailCount: item.ownerEmail.count, title: title, titleCount: item.title.count,
                notes: notes, notesCount: item.notes?.count ?? -1, status: status, statusCount: item.status.count))
    }

    /// Calls `body` with each row, in the order they were appended.
    func forEach(_ body: (ExportedItemText) throws -> Void) throws {
        try bytes.withUnsafeBufferPointer { buffer in
            // A page of empty texts has no storage: a zero-length buffer still needs a base.
            guard let base = buffer.baseAddress ?? UnsafePointer(bitPattern: 1) else { return }
            func text(_ start: Int, _ count: Int) -> UnsafeBufferPointer<UInt8> {
                UnsafeBufferPointer(start: base + start, count: count)
            }
            for row in rows {
                try body(
                    ExportedItemText(
                        id: row.id, ownerEmail: text(row.email, row.emailCount), title: text(row.title, row.titleCount),
                        notes: row.notesCount < 0 ? nil : text(row.notes, row.notesCount),
                        status: text(row.status, row.statusCount), priority: row.priority, createdAt: row.createdAt,
                        updatedAt: row.updatedAt))
            }
        }
    }

    /// Empties the page, keeping its room.
    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        rows.removeAll(keepingCapacity: true)
    }
}
