public import ShelfReactive

/// A one-line question answered by typing: the owner's email or a priority for the marked
/// items. `submit(_:)` checks the answer with `validate` and hands it to `perform`, which may
/// refuse it with a message (no such user); the prompt stays open until an answer is taken
/// or it is cancelled. Main actor.
@MainActor
public final class PromptViewModel {
    /// The dialog's title, e.g. "Owner of 3 items".
    public let title: String
    /// The question, e.g. "Email of the new owner:".
    public let question: String
    /// The text the field starts with.
    public let initialText: String
    /// Why the last answer was refused; nil when there is none.
    public let error: Property<String?>
    /// The keys that answer, named as `keys` names them.
    public nonisolated static func hints(keys: KeyNames = .defaults) -> String {
        "\(keys("prompt.accept", "Enter")): apply    \(keys("prompt.cancel", "Esc")): cancel"
    }

    /// The prompt's foot: while suggestions show, the keys that move among them, take one and
    /// close the list (hostile round 8: the owner prompt's list had no foot); else `hints(keys:)`.
    public nonisolated static func hintLine(suggesting: Bool, keys: KeyNames = .defaults) -> [KeyHint] {
        guard suggesting else { return [KeyHint(hints(keys: keys), rank: 1)] }
        return [
            KeyHint("↑/↓ choose", rank: 2), KeyHint("Tab or \(keys("prompt.accept", "Enter")) take", rank: 1),
            KeyHint("\(keys("prompt.cancel", "Esc")) close the list", rank: 1),
        ]
    }
    /// nil while asking; true once an answer was taken, false once cancelled.
    public let decision: Property<Bool?>
    /// Completions of the text typed so far (`textChanged(_:)`), best first; empty when the
    /// prompt has none or nothing fits.
    public let suggestions: Property<[PromptSuggestion]>

    private let validate: @MainActor (String) -> String?
    private let perform: @MainActor (String) async -> String?
    private let mutableError = MutableProperty<String?>(nil)
    private let mutableDecision = MutableProperty<Bool?>(nil)
    private let mutableSuggestions = MutableProperty<[PromptSuggestion]>([])
    /// True when the prompt completes its text (it was given a `loadSuggester`).
    public let completes: Bool
    /// What completes a text, once `loadSuggester` has given it.
    private var suggest: (@MainActor (String) -> [PromptSuggestion])?
    private var typed = ""
    /// The read of what completes a text, cancelled with the prompt.
    private var loading: Task<Void, Never>?
    private var isSubmitting = false
    private let tasks = IntentTracker()

    /// A prompt. `validate` returns why a text is unacceptable (nil when fine), at once;
    /// `perform` acts on an acceptable text and returns why it could not (nil when done).
    /// `loadSuggester`, when given, is started at once and returns what completes a text (the
    /// owner prompt reads the users); when it throws, `error` says there are no suggestions.
    public init(
        title: String, question: String, initialText: String = "",
        validate: @escaping @MainActor (String) -> String? = { _ in nil },
        loadSuggester: (@MainActor () async throws -> @MainActor (String) -> [PromptSuggestion])? = nil,
        perform: @escaping @MainActor (String) async -> String?
    ) {
        self.title = title
        self.question = question
        self.initialText = initialText
        self.validate = validate
        self.perform = perform
        error = mutableError.property
        decision = mutableDecision.property
        suggestions = mutableSuggestions.property
        typed = initialText
        completes = loadSuggester != nil
        if let loadSuggester {
            // Not a tracked intent: an answer submitted meanwhile waits for its own work only.
            loading = Task { [weak self] in
                do {
                    let suggest = try await loadSuggester()
                    guard let self else { return }
                    self.suggest = suggest
                    mutableSuggestions.value = suggest(typed)
                } catch is CancellationError {
                    // The prompt went away.
                } catch {
                    self?.mutableError.value = "No suggestions: \(error)"
                }
            }
        }
    }

    isolated deinit {
        loading?.cancel()
    }

    /// The field's text is now `text`: the suggestions follow it.
    public func textChanged(_ text: String) {
        typed = text
        guard let suggest else { return }
        let next = suggest(text)
        if next != mutableSuggestions.value { mutableSuggestions.value = next }
    }

    /// Checks `text` and acts on it; `decision` becomes true when it was taken, else `error`
    /// says why not. Does nothing while an answer is being acted on, or once decided.
    @discardableResult
    public func submit(_ text: String) -> Intent {
        guard !isSubmitting, mutableDecision.value == nil else { return .done }
        if let problem = validate(text) {
            mutableError.value = problem
            return .done
        }
        isSubmitting = true
        return tasks.start(
            { [weak self, perform] in
                let problem = await perform(text)
                guard let self else { return }
                isSubmitting = false
                if let problem {
                    mutableError.value = problem
                } else {
                    mutableDecision.value = true
                }
            }, onFailure: { _ in })  // `perform` cannot throw: it returns its problem
    }

    /// Closes without acting: `decision` becomes false (when not decided yet).
    public func cancel() {
        if mutableDecision.value == nil { mutableDecision.value = false }
    }
}

/// One completion a prompt offers: the line shown in its list (and a detail shown beside it),
/// and the text it puts in the field.
public struct PromptSuggestion: Hashable, Sendable {
    /// What the list shows, e.g. "Grace Hopper".
    public let line: String
    /// What the list shows beside `line`, kept readable when `line` is cut (a user's email);
    /// empty for none.
    public let detail: String
    /// What taking it puts in the field, e.g. "grace@example.com".
    public let value: String
    /// How many completions match in all, of which the list holds the best few (5,000 users
    /// where five are offered); 0 when the list is all. The same in each of a list's.
    public let matchCount: Int

    /// A completion showing `line` (and `detail` beside it) that puts `value` in the field,
    /// one of `matchCount` matching in all.
    public init(line: String, detail: String = "", value: String, matchCount: Int = 0) {
        self.line = line
        self.detail = detail
        self.value = value
        self.matchCount = matchCount
    }
}
