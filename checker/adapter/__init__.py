"""A client's own code checked through an adapter (docs/client-targets.md).

``protocol``: the JSON-lines messages and what makes an answer bad; ``client``:
who answers them (an adapter process, or a consumer variant run through the
reference consumer in process); ``play``: dcpcheck as the producer, playing one
scenario to a client and recording the ``Trace`` the properties read;
``search``: every scenario of some first histories judged, the smallest
violation of each property kept; ``check``: the results of ``dcpcheck clients
--target``; ``conform``: where a client and a consumer variant differ.
"""
