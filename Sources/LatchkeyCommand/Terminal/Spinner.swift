import Foundation

/// A one-line spinner on stderr: appears only after a short delay (fast calls stay silent) and
/// clears its line when stopped.
struct Spinner: Sendable {
    /// How long a call runs before the spinner appears.
    static let delay: Duration = .milliseconds(300)
    /// Time between frames.
    static let interval: Duration = .milliseconds(100)
    static let frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]

    /// Draws until cancelled; returns whether it drew anything.
    private let task: Task<Bool, Never>

    /// Starts a spinner showing `label`.
    static func start(_ label: String) -> Spinner {
        Spinner(
            task: Task {
                do {
                    try await Task.sleep(for: delay)
                } catch {
                    return false
                }
                var frame = 0
                while !Task.isCancelled {
                    Terminal.writeError("\r\(frames[frame % frames.count]) \(label)")
                    frame += 1
                    try? await Task.sleep(for: interval)
                }
                return true
            })
    }

    /// Stops the spinner and clears its line.
    func stop() async {
        task.cancel()
        if await task.value {
            Terminal.writeError("\r\u{1B}[K")
        }
    }
}
