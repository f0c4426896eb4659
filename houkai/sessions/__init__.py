"""Sessions: the working memory of conversations, and their extraction into memories.

- :mod:`.messages`: incoming messages checked once for every door;
- :mod:`.state`: the Redis keys of a session (messages idempotent on id, the window,
  the running summary, what each message became);
- :mod:`.summary`: the extractive running summary;
- :mod:`.trigger`: when extraction runs (after K messages or T seconds idle);
- :mod:`.extract` and :mod:`.reconcile`: the job that turns messages into memories;
- :mod:`.context`: a session read back as a prompt context.

The store's door is :class:`houkai.store.sessions.Sessions`.
"""
