/// Pods' version, one constant for `pods --version` and `podsd --version`.
public enum PodsVersion {
    public static let current = "0.1.0"
}
