# The base of the wrappers whose native object one thread may close while another thread's call
# still uses it without the GIL (included by wrapper.pyx before them).


cdef class Closable:
    """A wrapper whose close() never frees the native object under a running call.

    Calls that release the GIL while they use the object ``enter()`` it first and ``leave()``
    it after; close() from another thread meanwhile only marks it closed, and the last call to
    leave frees it (so a buffer destroyed during another thread's read frees its memory once
    the read returns, and the read returns whole). Entering an object enters its context too:
    a context closed meanwhile is freed after the last call on any of its objects. Both run
    with the GIL held, so the counts need no atomics.
    """
    cdef int calls  # calls now using the native object without the GIL
    cdef readonly bint closed
    cdef Closable parent  # the context the native object needs alive (None for a context)
    cdef str what  # "the buffer", for errors

    cdef int check_open(self) except -1:
        if self.closed:
            raise _class_for("closed")(f"{self.what} was closed")
        if self.parent is not None and self.parent.closed:
            raise _class_for("closed")(f"the context of {self.what} was closed")
        return 0

    cdef int enter(self) except -1:
        self.check_open()
        if self.parent is not None:
            self.parent.calls += 1
        self.calls += 1
        return 0

    cdef int leave(self) except -1:
        self.calls -= 1
        try:
            if self.calls == 0 and self.closed:
                self.free()
        finally:
            if self.parent is not None:
                self.parent.leave()
        return 0

    cdef int free(self) except -1:
        """Frees the native object (subclasses); runs once, when closed and no call uses it."""
        return 0

    def close(self):
        """Frees the native object now, or when the calls using it in other threads return."""
        if not self.closed:
            self.closed = True
            if self.calls == 0:
                self.free()
        _check_validation()


cdef int _enter_all(list objects, list entered) except -1:
    """Enters each of ``objects``, appending it to ``entered``; on a closed one, leaves those
    entered so far and raises."""
    cdef Closable obj
    try:
        for obj in objects:
            obj.enter()
            entered.append(obj)
    except BaseException:
        _leave_all(entered)
        raise
    return 0


cdef int _leave_all(list entered) except -1:
    cdef Closable obj
    for obj in entered:
        obj.leave()
    entered.clear()
    return 0
