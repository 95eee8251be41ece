"""An allocation strategy written independently of the reference ports: what a
strategy author brings to the suite.

    pytest --rmq-strategy=my_allocation:Averagely
"""


class Averagely:
    """RocketMQ's default strategy: consecutive pages, the first ``n % c`` clients take one more."""

    name = "AVG"  # Java getName(): selects the golden vectors to check against

    def allocate(self, consumer_group, current_cid, mq_all, cid_all):
        if not current_cid:
            raise ValueError("currentCID is empty")
        if not mq_all:
            raise ValueError("mqAll is null or mqAll empty")
        if not cid_all:
            raise ValueError("cidAll is null or cidAll empty")
        if current_cid not in cid_all:
            return []
        index = cid_all.index(current_cid)  # the first position, as Java's indexOf
        base, extra = divmod(len(mq_all), len(cid_all))
        if len(mq_all) <= len(cid_all):
            return [mq_all[index]] if index < len(mq_all) else []
        start = index * base + min(index, extra)
        return list(mq_all[start : start + base + (1 if index < extra else 0)])
