//! Typed indices into the simulator's arenas: a link id cannot index the flows.
//! Entities live in plain vectors (`Arena`) and refer to each other by these ids.

use std::marker::PhantomData;
use std::ops::{Index, IndexMut};

/// A link: `Sim::links[LinkId]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct LinkId(pub u32);

/// A flow (connection): `Sim::flows[FlowId]`. Packets carry its raw index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct FlowId(pub u32);

/// A vector indexed by its own id type.
pub struct Arena<I, T> {
    items: Vec<T>,
    _id: PhantomData<I>,
}

/// Ids that are a position in an arena.
pub trait ArenaId: Copy {
    fn new(index: usize) -> Self;
    fn index(self) -> usize;
}

impl ArenaId for LinkId {
    #[inline]
    fn new(index: usize) -> Self {
        LinkId(index as u32)
    }
    #[inline]
    fn index(self) -> usize {
        self.0 as usize
    }
}

impl ArenaId for FlowId {
    #[inline]
    fn new(index: usize) -> Self {
        FlowId(index as u32)
    }
    #[inline]
    fn index(self) -> usize {
        self.0 as usize
    }
}

impl<I: ArenaId, T> Arena<I, T> {
    pub fn len(&self) -> usize {
        self.items.len()
    }
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.items.iter()
    }
    pub fn iter_mut(&mut self) -> std::slice::IterMut<'_, T> {
        self.items.iter_mut()
    }
    /// (id, item) pairs in order.
    pub fn entries(&self) -> impl Iterator<Item = (I, &T)> {
        self.items.iter().enumerate().map(|(i, t)| (I::new(i), t))
    }
}

impl<I, T> From<Vec<T>> for Arena<I, T> {
    fn from(items: Vec<T>) -> Self {
        Arena { items, _id: PhantomData }
    }
}

impl<I: ArenaId, T> Index<I> for Arena<I, T> {
    type Output = T;
    #[inline]
    fn index(&self, id: I) -> &T {
        &self.items[id.index()]
    }
}

impl<I: ArenaId, T> IndexMut<I> for Arena<I, T> {
    #[inline]
    fn index_mut(&mut self, id: I) -> &mut T {
        &mut self.items[id.index()]
    }
}
