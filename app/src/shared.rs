//! `Shared`: an `Arc` compared by identity, so a memo holding a large value (a loaded shard, a
//! view model) is cheap to compare. A plain module: the browser edge (`web.rs`) and the components
//! (`ui/`) both use it, and neither imports the other for it.

use std::sync::Arc;

pub struct Shared<T>(pub Arc<T>);

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Shared(self.0.clone())
    }
}

impl<T> PartialEq for Shared<T> {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

#[cfg(test)]
mod tests {
    use super::Shared;
    use std::sync::Arc;

    #[test]
    fn equal_only_to_itself_not_to_an_equal_value() {
        let a = Shared(Arc::new(vec![1, 2]));
        assert!(a == a.clone());
        assert!(a != Shared(Arc::new(vec![1, 2])), "identity, not value: a reloaded shard is a change");
    }
}
