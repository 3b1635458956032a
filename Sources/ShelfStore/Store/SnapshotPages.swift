internal import ShelfReactive
internal import Synchronization

/// The pages of one snapshot read (`Store.itemPages(matching:pageSize:)`), as an
/// `AsyncSequence`: iterate it with `for try await page in pages`.
///
/// Each iterator (each `for` loop) starts a read of its own when its first page is asked
/// for; the read holds one consistent snapshot of the store, so every page comes from the
/// same state whatever is written meanwhile. Reading runs ahead of the consumer by at most
/// one page: a slow consumer makes the read wait, so memory holds about three pages at most
/// (the consumer's, one waiting, one being read), however large the result.
///
/// Nothing blocks a cooperative thread: `next()` suspends while the next page is read. The
/// read ends, releasing its snapshot and its connection, when the last page was taken, when
/// the consumer leaves the loop early (the iterator is released), or when the consuming task
/// is cancelled (`next()` then throws `CancellationError`); the release happens on the read's
/// own thread or task, promptly, without waiting for the consumer. Errors of the read
/// (`StoreError`) are thrown from `next()`, once; after an error or the last page, `next()`
/// returns nil.
public struct SnapshotPages<Value: Sendable>: AsyncSequence, Sendable {
    /// A page: up to the page size of values, never empty.
    public typealias Element = [Value]
    /// Errors the read throws (`StoreError`, `CancellationError`).
    public typealias Failure = any Error

    /// The read: sends every page to the sink, in order, from one snapshot.
    private let read: @Sendable (PageSink<Value>) async throws -> Void

    /// Pages that `read` produces; it runs once per iterator, from the iterator's first
    /// `next()`, in a task of its own. `read` must end when a send throws (the consumer
    /// stopped), and when that task is cancelled.
    package init(_ read: @escaping @Sendable (PageSink<Value>) async throws -> Void) {
        self.read = read
    }

    /// An iterator whose first `next()` starts a read of its own.
    public func makeAsyncIterator() -> Iterator {
        Iterator(reader: PageReader(read))
    }

    /// For blocking code on a thread of its own (never a task: it blocks while each page is
    /// read, as `BlockingWork.waitFor` does): reads the pages as a `for` loop does and calls
    /// `body` with each, in order, on this thread. A throwing body stops the read; its error is
    /// rethrown. Returns, or throws, only once the read has ended and released its snapshot
    /// (and, on PostgreSQL, its connection), so a store closed right after never closes a
    /// connection under a read.
    package func forEachPage(_ body: ([Value]) throws -> Void) throws {
        let reader = PageReader(read)
        defer {
            reader.stop()
            // Waits for the read's task, which ends promptly once stopped; it throws nothing.
            _ = try? BlockingWork.waitFor { await reader.ended() }
        }
        while let page = try BlockingWork.waitFor({ try await reader.next() }) {
            try body(page)
        }
    }

    /// Iterates the pages of one read; releasing it before the last page ends the read.
    /// Not `Sendable`: one task iterates it (`next()` is not to be called by two at once).
    public struct Iterator: AsyncIteratorProtocol {
        fileprivate let reader: PageReader<Value>

        /// The next page, or nil after the last one. The first call starts the read.
        /// - Throws: `StoreError` when the read fails; `CancellationError` when the task is
        ///   cancelled (the read ends).
        public mutating func next() async throws -> [Value]? {
            try await reader.next()
        }

        /// How far the read has got, for tests of the memory bound.
        package var progress: PageSink<Value>.Progress { reader.sink.progress }
    }
}

/// One iterator's read: starts it on the first `next()` and stops it when the consumer
/// leaves (released) or is cancelled.
private final class PageReader<Value: Sendable>: Sendable {
    let sink = PageSink<Value>()
    private let read: @Sendable (PageSink<Value>) async throws -> Void

    private enum Stage {
        case idle
        case reading(Task<Void, Never>)
        /// Stopped, with the read's task when it had started.
        case stopped(Task<Void, Never>?)
    }

    private let stage = Mutex(Stage.idle)

    init(_ read: @escaping @Sendable (PageSink<Value>) async throws -> Void) {
        self.read = read
    }

    deinit {
        stop()
    }

    func next() async throws -> [Value]? {
        start()
        return try await withTaskCancellationHandler {
            try await sink.receive()
        } onCancel: {
            stop()
        }
    }

    /// Starts the read unless it has started or was stopped.
    private func start() {
        stage.withLock { stage in
            guard case .idle = stage else { return }
            let sink = self.sink
            let read = self.read
            // Not fire-and-forget: every outcome of the read reaches the consumer through the
            // sink (its pages, its end, its error), and `stop()` cancels it. Only after the
            // consumer stopped is an error dropped, since nobody is left to hear it.
            stage = .reading(
                Task {
                    do {
                        try await read(sink)
                        sink.finish(throwing: nil)
                    } catch {
                        sink.finish(throwing: error)
                    }
                })
        }
    }

    /// Stops the read: its next send throws, and its task is cancelled (which interrupts a
    /// statement in progress).
    func stop() {
        sink.stop()
        let task = stage.withLock { stage -> Task<Void, Never>? in
            if case .reading(let task) = stage {
                stage = .stopped(task)
                return task
            }
            if case .idle = stage { stage = .stopped(nil) }
            return nil
        }
        task?.cancel()
    }

    /// Returns once the read's task has ended (at once when it never started).
    func ended() async {
        let task = stage.withLock { stage -> Task<Void, Never>? in
            switch stage {
            case .idle: nil
            case .reading(let task), .stopped(let task?): task
            case .stopped(nil): nil
            }
        }
        await task?.value
    }
}
